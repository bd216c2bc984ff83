package loadgen_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/distributed"
	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/workload"
)

// `put -c 2 --ops 300` over three processes once gave the third no
// workers but a third of the ops, which it dropped: the merged run
// counted 200 PUTs. Every process now refuses the split, with the same
// words, before any load.
func TestSplitRefusesAProcessWithoutWorkers(t *testing.T) {
	l := newLedger()
	sp := workload.Spec{Stages: []workload.Stage{{Name: "main", Kind: workload.KindMain, Streams: []workload.Stream{{Name: "put",
		Concurrency: []int{2}, Bounds: workload.Bounds{Ops: 300, Duration: 20 * time.Second},
		Mix: []workload.OpWeight{{Op: "put", Weight: 1}}, Size: 100, Objects: workload.KeySpace{Prefix: "p/"}}}}}}
	_, errs := runWorkers(t, l, sp, 3)
	for w, err := range errs {
		var se *loadgen.SplitError
		if !errors.As(err, &se) || len(se.Problems) != 1 || se.Problems[0].Field != "concurrency" || len(se.Problems[0].Idle) != 1 || se.Problems[0].Idle[0] != 2 {
			t.Fatalf("worker %d: %v; want the split refused: concurrency 2 leaves worker 2 idle", w, err)
		}
		if !strings.Contains(err.Error(), "give concurrency at least 3") {
			t.Errorf("worker %d: %q does not say which values work", w, err)
		}
	}
	if len(l.writes) != 0 {
		t.Errorf("%d objects written by a run that was refused", len(l.writes))
	}
	// So is a step with fewer ops than processes.
	sp.Stages[0].Streams[0].Concurrency, sp.Stages[0].Streams[0].Bounds.Ops = []int{3}, 2
	if _, err := loadgen.Split(sp, distributed.Worker{Rank: 0, Size: 3}); err == nil || !strings.Contains(err.Error(), "ops 2 over 3 workers") {
		t.Errorf("ops 2 over 3 workers: %v", err)
	}
}

// A step's ops follow its workers: concurrency 4 over three processes is
// 2/1/1 workers, and 300 PUTs are 150/75/75; together exactly the run's.
func TestSplitOpsFollowTheWorkers(t *testing.T) {
	l := newLedger()
	sp := spec(workload.Stream{Name: "m", Concurrency: []int{4}, Bounds: workload.Bounds{Ops: 300, Duration: 20 * time.Second},
		Mix: []workload.OpWeight{{Op: "put", Weight: 1}}, Size: 64, Objects: workload.KeySpace{Prefix: "m/"}})
	outs, errs := runWorkers(t, l, sp, 3)
	for w, want := range []int64{150, 75, 75} {
		if errs[w] != nil {
			t.Fatalf("worker %d: %v", w, errs[w])
		}
		s := outs[w].Steps[1].Streams[0]
		if got := total(t, outs[w].Steps[1], "PUT"); got.Ops != want || got.OK != want {
			t.Errorf("worker %d: %d PUTs (%d ok) with %d workers, want %d", w, got.Ops, got.OK, s.Concurrency, want)
		}
	}
}

// A prepare stream with fewer workers than processes still writes every
// object: each process its part, with one worker at least. (A process
// without workers once skipped its part: 60 of 200 GETs found nothing.)
func TestPrepareWritesEveryShareWithFewWorkers(t *testing.T) {
	l := newLedger()
	ks := workload.KeySpace{Prefix: "g/", Count: 30}
	sp := workload.Spec{Stages: []workload.Stage{
		{Name: "prepare", Kind: workload.KindPrepare, Streams: []workload.Stream{{Name: "prep", Concurrency: []int{1}, Size: 128, Objects: ks}}},
		{Name: "main", Kind: workload.KindMain, Streams: []workload.Stream{{Name: "g", Concurrency: []int{3},
			Bounds: workload.Bounds{Ops: 90, Duration: 20 * time.Second}, Mix: []workload.OpWeight{{Op: "get", Weight: 1}}, Size: 128, Objects: ks}}},
		{Name: "cleanup", Kind: workload.KindCleanup}}}
	outs, errs := runWorkers(t, l, sp, 3)
	var gets, ok int64
	for w := range 3 {
		if errs[w] != nil {
			t.Fatalf("worker %d: %v", w, errs[w])
		}
		g := total(t, outs[w].Steps[1], "GET")
		gets, ok = gets+g.Ops, ok+g.OK
	}
	if len(l.writes) != 30 || gets != 90 || ok != 90 {
		t.Errorf("%d objects prepared, %d GETs of which %d ok; want 30 and 90 all ok", len(l.writes), gets, ok)
	}
}

// A dry run's share: what worker 1 of 3 would do in each step.
func TestSplitSaysEachWorkersShare(t *testing.T) {
	sp := spec(workload.Stream{Name: "m", Concurrency: []int{3, 6}, Bounds: workload.Bounds{Ops: 601, Duration: time.Second},
		Mix: []workload.OpWeight{{Op: "get", Weight: 1}}, Size: 64, Objects: workload.KeySpace{Prefix: "m/", Count: 100}})
	shares, err := loadgen.Split(sp, distributed.Worker{Rank: 1, Size: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := []loadgen.Share{
		{Stage: "prepare", Kind: workload.KindPrepare, Stream: "m", Workers: 2, AllWorkers: 6, First: 34, Objects: 33, AllObjects: 100},
		{Stage: "main", Kind: workload.KindMain, Stream: "m", Workers: 1, AllWorkers: 3, Ops: 200, AllOps: 601},
		{Stage: "main", Kind: workload.KindMain, Step: 1, Stream: "m", Workers: 2, AllWorkers: 6, Ops: 200, AllOps: 601},
	}
	if len(shares) != len(want) {
		t.Fatalf("%d shares: %+v", len(shares), shares)
	}
	for i := range want {
		if shares[i] != want[i] {
			t.Errorf("share %d: %+v, want %+v", i, shares[i], want[i])
		}
	}
}

// A sweep that starts below the number of processes runs: in the step of
// concurrency 1 only worker 0 works (with all the step's ops), as a
// COSBench driver given no workers of a work runs none of it; the other
// steps use every process.
func TestSplitLetsASweepStartBelowTheProcesses(t *testing.T) {
	l := newLedger()
	sp := spec(workload.Stream{Name: "m", Concurrency: []int{1, 3}, Bounds: workload.Bounds{Ops: 60, Duration: 20 * time.Second},
		Mix: []workload.OpWeight{{Op: "put", Weight: 1}}, Size: 64, Objects: workload.KeySpace{Prefix: "m/"}})
	outs, errs := runWorkers(t, l, sp, 3)
	var first, second int64
	for w := range 3 {
		if errs[w] != nil {
			t.Fatalf("worker %d: %v", w, errs[w])
		}
		for _, st := range outs[w].Steps {
			if st.Kind != result.KindMain || len(st.Streams) == 0 {
				continue
			}
			n := total(t, st, "PUT").OK
			if st.Step == 0 {
				first += n
				if w > 0 && n > 0 {
					t.Errorf("worker %d ran %d PUTs in the step of concurrency 1", w, n)
				}
			} else {
				second += n
			}
		}
	}
	if first != 60 || second != 60 {
		t.Errorf("steps ran %d and %d PUTs, want the run's 60 each", first, second)
	}
}
