package e2e_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/result"
)

// small is a cosmoflow data set of a few dozen MB (2.8 MB a sample, one
// sample per object), computed 20 ms a batch.
var small = []string{"--model", "cosmoflow", "--accelerator", "h100", "--dataset-size", "30MB", "--compute-time", "20ms"}

// ai train on the embedded server: the data set is generated, every
// epoch's accelerators read their shards, the table says what the store
// fed, the result file holds each accelerator's epoch and reads back in
// report; bad input exits 2 naming the value; --dry-run touches nothing.
func TestAITrainOnTheEmbeddedServer(t *testing.T) {
	dir := t.TempDir()
	args := append([]string{"ai", "train", "--accelerators", "2", "--epochs", "2", "-o", "r.json"}, small...)
	r := objbench(t, dir, nil, args...).mustSucceed(t)
	res := readResult(t, filepath.Join(dir, "r.json"))
	// Whether the store kept up depends on this machine's load: the
	// verdict must be the one the file's figures give.
	verdict := "this store fed 2 H100 (cosmoflow) from this client"
	for _, st := range res.Steps {
		if len(st.Training) == 1 && !st.Training[0].Met() {
			verdict = "this store did not feed 2 H100 (cosmoflow) from this client"
		}
	}
	for _, want := range []string{"warning: the data set (", "Training: cosmoflow on h100 x2", verdict} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	epochs := 0
	for _, st := range res.Steps {
		if len(st.Training) == 0 {
			continue
		}
		epochs++
		tr := st.Training[0]
		if tr.Epoch != epochs || len(tr.Loaders) != 2 || tr.Errors() != 0 || tr.AU() <= 0 || tr.AU() > 1 || tr.DatasetSamples != 10 {
			t.Errorf("%s: epoch %d, %d loaders, %d errors, AU %v, %d samples", st.Stage, tr.Epoch, len(tr.Loaders), tr.Errors(), tr.AU(), tr.DatasetSamples)
		}
		if ops := st.Streams[0].Totals[0].Ops; ops != 10 {
			t.Errorf("%s: %d GETs, want the 2 x 5 samples of the shards", st.Stage, ops)
		}
	}
	if epochs != 2 {
		t.Fatalf("%d epochs in the result", epochs)
	}
	rep := objbench(t, dir, nil, "report", "r.json").mustSucceed(t)
	if !strings.Contains(rep.stdout, verdict) {
		t.Errorf("report of the file lacks the training table:\n%s", rep.stdout)
	}
	// compare sets the AI figures side by side, beside the requests.
	cmp := objbench(t, dir, nil, "compare", "r.json", "r.json").mustSucceed(t)
	if !strings.Contains(cmp.stdout, "AI figures (training)") || strings.Count(cmp.stdout, "cosmoflow on h100 x2") != 2 ||
		!strings.Contains(cmp.stdout, "% +0.0 pts") {
		t.Errorf("compare of a training run with itself:\n%s", cmp.stdout)
	}

	bad := objbench(t, dir, nil, "ai", "train", "--accelerator", "x9")
	if bad.code != 2 || !strings.Contains(bad.stderr, `"x9"`) || !strings.Contains(bad.stderr, "b200, h100, a100, v100") ||
		!strings.Contains(bad.stderr, "--compute-time") {
		t.Errorf("--accelerator x9: exit %d\n%s", bad.code, bad.stderr)
	}
	dry := objbench(t, dir, nil, "ai", "train", "--model", "unet3d", "--accelerators", "8", "--dry-run", "--endpoint-url", "http://127.0.0.1:1", "--bucket", "b").mustSucceed(t)
	if !strings.Contains(dry.stdout, "8 accelerators x 3 steps x 7 samples = 168 GETs") {
		t.Errorf("dry run:\n%s", dry.stdout)
	}
	// A worker's dry run, as objbench run's, needs no run id.
	dry = objbench(t, dir, nil, "ai", "train", "--model", "unet3d", "--accelerators", "8", "--dry-run", "--worker", "1/2",
		"--endpoint-url", "http://127.0.0.1:1", "--bucket", "b").mustSucceed(t)
	if !strings.Contains(dry.stdout, "8 accelerators x 3 steps x 7 samples = 168 GETs") ||
		!strings.Contains(dry.stdout, "this process is worker 1/2: accelerators 4-7 (4 of 8), 84 of the 168 reads of each epoch") {
		t.Errorf("worker 1/2, dry run: want the run's plan and this worker's share:\n%s", dry.stdout)
	}
	// A worker with no accelerator would run nothing: refused, by every rank.
	idle := objbench(t, dir, nil, "ai", "train", "--model", "unet3d", "--accelerators", "1", "--dry-run", "--worker", "0/2",
		"--endpoint-url", "http://127.0.0.1:1", "--bucket", "b")
	if idle.code != 2 || !strings.Contains(idle.stderr, "accelerators 1 over 2 workers: worker 1 would have none to run") || idle.stdout != "" {
		t.Errorf("1 accelerator over 2 workers: exit %d\n%s%s", idle.code, idle.stdout, idle.stderr)
	}
	// MLPerf Storage v3.0's b200 files: unet3d's 7200 files, 1024 batches
	// of 7 for 8 accelerators (128 steps each); dlrm's parquet files, 968
	// GETs a file (by hand in profiles/ai TestDLRMLayoutAndEpochByHand).
	for _, c := range []struct{ model, want string }{
		{"unet3d", "8 accelerators x 128 steps x 7 samples = 7168 GETs of whole files (1.06 TB)"},
		{"dlrm", "8 accelerators x 36864 steps x 16384 samples = 4831838208 rows, read in 991232 ranged GETs"},
	} {
		dry := objbench(t, dir, nil, "ai", "train", "--model", c.model, "--accelerator", "b200", "--accelerators", "8", "--dry-run",
			"--endpoint-url", "http://127.0.0.1:1", "--bucket", "b").mustSucceed(t)
		if !strings.Contains(dry.stdout, c.want) {
			t.Errorf("%s on b200, dry run: want %q in\n%s", c.model, c.want, dry.stdout)
		}
	}
}

// --find-max steps the accelerators up from 1, doubling, and says the
// most that kept the AU target; the rounds are in the result.
func TestAIFindMaxOnTheEmbeddedServer(t *testing.T) {
	dir := t.TempDir()
	args := append([]string{"ai", "train", "--find-max", "--max-accelerators", "4", "--round-steps", "4", "-o", "r.json"}, small...)
	r := objbench(t, dir, nil, args...).mustSucceed(t)
	res := readResult(t, filepath.Join(dir, "r.json"))
	var rounds []result.Training
	for _, st := range res.Steps {
		if st.Stage == "find-max" {
			rounds = st.Training
		}
	}
	if len(rounds) == 0 || rounds[0].Accelerators != 1 {
		t.Fatalf("rounds: %+v", rounds)
	}
	most, bounded := result.MostFed(rounds)
	want := fmt.Sprintf("this store feeds %d H100 (cosmoflow) from this client", most)
	if !bounded {
		want = fmt.Sprintf("this store feeds at least %d H100 (cosmoflow)", most)
	}
	if most == 0 {
		want = "this store feeds no H100"
	}
	if !strings.Contains(r.stdout, want) {
		t.Errorf("output lacks %q:\n%s", want, r.stdout)
	}
	for _, rd := range rounds {
		if len(rd.Loaders) != rd.Accelerators || rd.Loaders[0].Steps != 4 {
			t.Errorf("round of %d: %d loaders of %d steps", rd.Accelerators, len(rd.Loaders), rd.Loaders[0].Steps)
		}
	}
}

// Checkpoints against MinIO and a directory: every save and load moves
// the checkpoint's bytes (the model's, scaled), loads read back what
// saves wrote (--verify), and nothing is left behind.
func TestAICheckpointAgainstMinIOAndFiles(t *testing.T) {
	_, st, flags, env := minioEnv(t)
	for name, target := range map[string][]string{"minio": flags, "file": {"--target", "file://" + t.TempDir()}} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"ai", "checkpoint", "--model", "llama3-8b", "--scale", "0.0002", "--writes", "2", "--reads", "2",
				"--interval", "0", "--verify", "-o", "r.json"}, target...)
			r := objbench(t, dir, env, args...).mustSucceed(t)
			if !strings.Contains(r.stdout, "warning: the checkpoints are scaled by 0.0002") || !strings.Contains(r.stdout, "Checkpoints: llama3-8b, 8 ranks, 16 objects") {
				t.Errorf("output:\n%s", r.stdout)
			}
			res := readResult(t, filepath.Join(dir, "r.json"))
			var ops []string
			for _, s := range res.Steps {
				c := s.Checkpoint
				if c == nil {
					continue
				}
				ops = append(ops, fmt.Sprintf("%s-%d", c.Op, c.Index))
				if c.Moved() != c.Bytes || c.Errors() != 0 || len(c.Rank) != 8 || c.Bytes != 22_485_128 {
					t.Errorf("%s %d: moved %d of %d bytes, %d errors, %d ranks", c.Op, c.Index, c.Moved(), c.Bytes, c.Errors(), len(c.Rank))
				}
			}
			if strings.Join(ops, ",") != "save-1,save-2,load-1,load-2" || !res.CleanedUp {
				t.Errorf("steps %v, cleaned up %v", ops, res.CleanedUp)
			}
			cmp := objbench(t, dir, nil, "compare", "r.json", "r.json").mustSucceed(t)
			if !strings.Contains(cmp.stdout, "AI figures (checkpoint)") || strings.Count(cmp.stdout, "llama3-8b, 8 ranks") != 2 {
				t.Errorf("compare of a checkpoint run with itself:\n%s", cmp.stdout)
			}
		})
	}
	if left := listAll(t, st); len(left) != 0 {
		t.Errorf("%d objects left: %v", len(left), left[:min(len(left), 4)])
	}
}

// A data set generated once is kept and read by later runs; a run of one
// that is not there stops before any load, naming --generate; dataset rm
// deletes it.
func TestAIDataSetIsKeptAcrossRuns(t *testing.T) {
	_, st, flags, env := minioEnv(t)
	dir := t.TempDir()
	train := func(extra ...string) run {
		args := append(append(append([]string{"ai", "train", "--accelerators", "2", "--epochs", "1", "-q"}, small...), flags...), extra...)
		return objbench(t, dir, env, args...)
	}
	train("--generate").mustSucceed(t)
	kept := len(listAll(t, st))
	train().mustSucceed(t)
	if kept != 10 || len(listAll(t, st)) != 10 {
		t.Errorf("%d objects after generating, %d after reading; want the 10 files", kept, len(listAll(t, st)))
	}
	missing := train("--dataset", "elsewhere")
	if missing.code != 2 || !strings.Contains(missing.stderr, "--generate") {
		t.Errorf("a data set not there: exit %d\n%s", missing.code, missing.stderr)
	}
	objbench(t, dir, env, append([]string{"dataset", "rm", "ai-cosmoflow-10f"}, flags...)...).mustSucceed(t)
	if left := listAll(t, st); len(left) != 0 {
		t.Errorf("%d objects left after dataset rm", len(left))
	}
}

// Two workers launched by mpirun split the accelerators: each runs two,
// and the merge holds all four, numbered 0 to 3, in one table.
func TestAITrainByMPIWorkersMerges(t *testing.T) {
	mpirun := testenv.MPIRun(t)
	m, _, _, env := minioEnv(t)
	dir := t.TempDir()
	env = append(env, "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1", "OMPI_MCA_btl_vader_single_copy_mechanism=none")
	args := append([]string{"--oversubscribe", "-np", "2", binary, "ai", "train", "--worker", "auto", "--run-id", "ai-mpi",
		"--accelerators", "4", "--epochs", "1", "--generate", "--endpoint-url", m.Endpoint, "--bucket", "bench", "--out", "res/", "-q"}, small...)
	args = append(args, "--dataset-size", "60MB")
	r := objbenchCmd(t, dir, env, 3*time.Minute, mpirun, args...)
	if r.code != 0 {
		t.Fatalf("mpirun: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "res", "ai-mpi", "worker-*.json"))
	if len(files) != 2 {
		t.Fatalf("worker results: %v", files)
	}
	for _, f := range files {
		w := readResult(t, f)
		if tr := w.Steps[len(w.Steps)-1].Training; len(tr) != 1 || len(tr[0].Loaders) != 2 {
			t.Errorf("%s: %+v; want 2 accelerators of 4", f, tr)
		}
	}
	out := objbench(t, dir, nil, "merge", filepath.Join("res", "ai-mpi"), "-o", "merged.json").mustSucceed(t)
	merged := readResult(t, filepath.Join(dir, "merged.json"))
	tr := merged.Steps[len(merged.Steps)-1].Training
	if len(tr) != 1 || len(tr[0].Loaders) != 4 || tr[0].Accelerators != 4 {
		t.Fatalf("merged: %+v", tr)
	}
	for i, l := range tr[0].Loaders {
		if l.Accelerator != i || l.Steps != 5 {
			t.Errorf("merged loader %d: accelerator %d, %d steps", i, l.Accelerator, l.Steps)
		}
	}
	if !strings.Contains(out.stdout, "H100 (cosmoflow) from 2 clients") {
		t.Errorf("merge's table:\n%s", out.stdout)
	}
}

// A lakehouse scan on the embedded server: per file the tail, the footer
// and the projected chunks of every row group, as the table says.
func TestAILakeOnTheEmbeddedServer(t *testing.T) {
	dir := t.TempDir()
	r := objbench(t, dir, nil, "ai", "lake", "--files", "8", "--row-groups", "2", "--columns", "6", "--column-size", "64KiB",
		"--projected", "3", "--queries", "3", "--files-per-query", "4", "--concurrency", "2", "-o", "r.json").mustSucceed(t)
	if !strings.Contains(r.stdout, "Lakehouse scan: 8 files") {
		t.Errorf("output:\n%s", r.stdout)
	}
	res := readResult(t, filepath.Join(dir, "r.json"))
	l := res.Steps[len(res.Steps)-1].Lake
	if l == nil || l.Queries != 3 || l.Requests != 3*4*(2+2*3) || l.Errors != 0 {
		t.Fatalf("lake: %+v", l)
	}
	if _, ok, _ := mainOps(res, "RANGE-GET"); ok != l.Requests {
		t.Errorf("%d ranged GETs in the stream, %d in the scan's figures", ok, l.Requests)
	}
}

// A workload file can name a profile instead of stages: objbench run runs
// the profile's command with its options; an option the command does not
// have is named with the file's line.
func TestAIProfileInAWorkloadFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "ckpt.yaml")
	writeFile(t, file, "name: trial\nprofile:\n  kind: ai checkpoint\n  model: llama3-8b\n  scale: 0.0001\n  writes: 1\n  reads: 1\n  interval: 0s\n")
	r := objbench(t, dir, nil, "run", file, "-o", "r.json").mustSucceed(t)
	if !strings.Contains(r.stdout, "Checkpoints: llama3-8b, 8 ranks") {
		t.Errorf("output:\n%s", r.stdout)
	}
	res := readResult(t, filepath.Join(dir, "r.json"))
	n := 0
	for _, s := range res.Steps {
		if c := s.Checkpoint; c != nil && c.Moved() == c.Bytes && c.Scale == 0.0001 {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d whole checkpoints (a save and a load) in the result", n)
	}
	bad := filepath.Join(dir, "bad.yaml")
	writeFile(t, bad, "profile:\n  kind: ai train\n  modle: unet3d\n")
	if r := objbench(t, dir, nil, "run", bad); r.code != 2 || !strings.Contains(r.stderr, `bad.yaml:2: profile option "modle"`) {
		t.Errorf("a misspelt option: exit %d\n%s", r.code, r.stderr)
	}
}
