package ai_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/objbench/objbench/distributed"
	"github.com/objbench/objbench/profiles/ai"
	"github.com/objbench/objbench/run"
	"github.com/objbench/objbench/storage/mem"
)

var shareRE = regexp.MustCompile(`^this process is worker (\d+)/2: accelerators? [\d-]+ \((\d+) of 3\), (\d+) of the 24 reads of each epoch$`)

// A training run split across two processes: each worker's plan says
// which of the 3 accelerators it runs and how many reads an epoch that
// holds, and it does exactly those reads; together the workers read the
// 24 files once.
func TestASplitTrainingRunSaysEachWorkersShareAndDoesIt(t *testing.T) {
	w := tiny()
	st := &readLog{Store: mem.New()}
	gen, err := ai.Train(ai.TrainConfig{Workload: w, Accelerators: 3, Generate: true, Epochs: 1})
	if err != nil {
		t.Fatal(err)
	}
	runPlan(t, st, gen, run.Options{NoCleanup: true})
	st.take()
	var accels, reads int
	for rank := range 2 {
		p, err := ai.Train(ai.TrainConfig{Workload: w, Accelerators: 3, Epochs: 1, Worker: distributed.Worker{Rank: rank, Size: 2}})
		if err != nil {
			t.Fatal(err)
		}
		var m []string
		for _, l := range p.Lines {
			if m = shareRE.FindStringSubmatch(l); m != nil {
				break
			}
		}
		if m == nil || m[1] != strconv.Itoa(rank) {
			t.Fatalf("worker %d/2: no line of its share in its plan:\n%s", rank, strings.Join(p.Lines, "\n"))
		}
		said, _ := strconv.Atoi(m[3])
		runPlan(t, st, p, run.Options{NoCleanup: true})
		did := 0
		for _, r := range st.take() {
			if strings.Contains(r.key, "/train/") {
				did++
			}
		}
		if did != said {
			t.Errorf("worker %d/2 said %d reads and did %d", rank, said, did)
		}
		n, _ := strconv.Atoi(m[2])
		accels, reads = accels+n, reads+did
	}
	if accels != 3 || reads != 24 {
		t.Errorf("the workers ran %d accelerators and read %d files, want 3 and 24", accels, reads)
	}
}

// A split that would leave a worker nothing to run (fewer accelerators,
// ranks or queries than workers) is refused, naming the idle workers and
// what would do; a plan for one process says nothing of workers.
func TestASplitThatLeavesAWorkerIdleIsRefused(t *testing.T) {
	unet, _ := ai.Lookup("unet3d", "h100")
	llama, _ := ai.LookupLLM("llama3-8b")
	lake := ai.LakeLayout{Files: 4, RowGroups: 1, Columns: 2, ColumnBytes: 10, FooterBytes: 10, Projected: 1}
	for _, c := range []struct {
		name string
		err  func(distributed.Worker) error
		want string
	}{
		{"train", func(wk distributed.Worker) error {
			_, err := ai.Train(ai.TrainConfig{Workload: unet, Accelerators: 2, Worker: wk})
			return err
		}, "accelerators 2 over 4 workers: workers 2 to 3 would have none to run; give at least 4 accelerators or at most 2 workers"},
		{"checkpoint", func(wk distributed.Worker) error {
			_, err := ai.Checkpoints(ai.CheckpointConfig{Model: llama, Ranks: 3, Worker: wk})
			return err
		}, "ranks 3 over 4 workers: worker 3 would have none to run; give at least 4 ranks or at most 3 workers"},
		{"lake", func(wk distributed.Worker) error {
			_, err := ai.Lake(ai.LakeConfig{Layout: lake, Queries: 1, FilesPerQuery: 1, Concurrency: 1, Worker: wk})
			return err
		}, "queries 1 over 4 workers: workers 1 to 3 would have none to run; give at least 4 queries or at most 1 worker"},
	} {
		for rank := range 4 { // every rank refuses, the busy ones too: they would wait for the idle
			if err := c.err(distributed.Worker{Rank: rank, Size: 4}); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s, worker %d/4: %v; want %q", c.name, rank, err, c.want)
			}
		}
		if err := c.err(distributed.Worker{}); err != nil {
			t.Errorf("%s in one process: %v", c.name, err)
		}
	}
	p, err := ai.Train(ai.TrainConfig{Workload: unet, Accelerators: 2})
	if err != nil || strings.Contains(strings.Join(p.Lines, "\n"), "worker") {
		t.Errorf("a plan for one process speaks of workers (%v):\n%s", err, strings.Join(p.Lines, "\n"))
	}
}
