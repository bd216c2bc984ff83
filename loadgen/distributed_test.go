package loadgen_test

import (
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/objbench/objbench/distributed"
	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/mem"
	"github.com/objbench/objbench/workload"
)

// ledger is a shared store that remembers which worker wrote and deleted
// which key.
type ledger struct {
	storage.Store
	mu      sync.Mutex
	writes  map[string][]int
	deletes map[string][]int
	reads   map[string][]int
}

func newLedger() *ledger {
	return &ledger{Store: mem.New(), writes: map[string][]int{}, deletes: map[string][]int{}, reads: map[string][]int{}}
}

// ledgerView is worker w's view of the ledger.
type ledgerView struct {
	*ledger
	w int
}

func (v ledgerView) Put(ctx context.Context, key string, body io.Reader, size int64, o storage.PutOptions) (storage.ObjectInfo, error) {
	v.mu.Lock()
	v.writes[key] = append(v.writes[key], v.w)
	v.mu.Unlock()
	return v.Store.Put(ctx, key, body, size, o)
}

func (v ledgerView) Get(ctx context.Context, key string, o storage.GetOptions, w io.Writer) (int64, error) {
	v.mu.Lock()
	v.reads[key] = append(v.reads[key], v.w)
	v.mu.Unlock()
	return v.Store.Get(ctx, key, o, w)
}

func (v ledgerView) Delete(ctx context.Context, key string) error {
	v.mu.Lock()
	v.deletes[key] = append(v.deletes[key], v.w)
	v.mu.Unlock()
	return v.Store.Delete(ctx, key)
}

// stepBarrier lets n in-process workers start each step together, as the
// store markers do between processes.
type stepBarrier struct {
	mu    sync.Mutex
	n     int
	count map[string]int
	done  map[string]chan struct{}
}

func (b *stepBarrier) wait(ctx context.Context, st workload.Stage, i int) error {
	k := st.Name + "/" + string(rune('0'+i))
	b.mu.Lock()
	if b.done[k] == nil {
		b.done[k] = make(chan struct{})
	}
	ch := b.done[k]
	if b.count[k]++; b.count[k] == b.n {
		close(ch)
	}
	b.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Three workers of one run, each with its share: prepare writes every
// object once, main-stage writes and deletes never touch the same key
// twice across workers, the workers' ops add up to the run's bound
// exactly, and their cleanups together leave nothing behind.
func TestWorkersSplitARunExactly(t *testing.T) {
	const n = 3
	l := newLedger()
	main := workload.Stream{Name: "m", Concurrency: []int{7}, Bounds: workload.Bounds{Ops: 1000, Duration: 20 * time.Second},
		Mix:  []workload.OpWeight{{Op: "get", Weight: 5}, {Op: "put", Weight: 3}, {Op: "delete", Weight: 2}},
		Size: 512, Objects: workload.KeySpace{Prefix: "p/", Count: 100}}
	sp := spec(main)
	outs, errs := runWorkers(t, l, sp, n)
	var ops, workers int64
	for w := range n {
		if errs[w] != nil {
			t.Fatalf("worker %d: %v", w, errs[w])
		}
		for _, tot := range outs[w].Steps[1].Streams[0].Totals {
			ops += tot.Ops
		}
		workers += int64(outs[w].Steps[1].Streams[0].Concurrency)
	}
	if ops != 1000 || workers != 7 {
		t.Errorf("the workers issued %d ops with %d workers in all, want the run's 1000 and 7", ops, workers)
	}
	prepared := 0
	for k, by := range l.writes {
		if len(by) != 1 {
			t.Errorf("%s written by workers %v, want exactly one", k, by)
		}
		if len(k) > len(ns)+2 && k[len(ns):len(ns)+2] == "p/" && k[len(ns)+2] == '0' {
			prepared++
		}
	}
	if prepared != 100 {
		t.Errorf("%d prepared objects written, want the 100 of the key space", prepared)
	}
	for k, by := range l.deletes {
		if len(by) != 1 {
			t.Errorf("%s deleted by workers %v, want one", k, by)
		}
	}
	if left := keys(t, l.Store); len(left) != 0 {
		t.Errorf("%d objects left after the workers' cleanups: %v", len(left), left[:min(len(left), 5)])
	}
}

// runWorkers runs sp as n workers of one run on the ledger, side by side.
func runWorkers(t *testing.T, l *ledger, sp workload.Spec, n int) ([]*loadgen.Outcome, []error) {
	t.Helper()
	b := &stepBarrier{n: n, count: map[string]int{}, done: map[string]chan struct{}{}}
	outs := make([]*loadgen.Outcome, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for w := range n {
		cfg := config(t, ledgerView{l, w}, sp)
		cfg.Worker, cfg.BeforeStep, cfg.Seed = distributed.Worker{Rank: w, Size: n}, b.wait, 42
		wg.Go(func() { outs[w], errs[w] = loadgen.Run(context.Background(), cfg) })
	}
	wg.Wait()
	return outs, errs
}

// A run that only reads reads the whole prepared key space from every
// worker, also the objects other workers prepared, and finds them all.
func TestWorkersReadEveryPreparedObject(t *testing.T) {
	const n = 3
	l := newLedger()
	sp := spec(workload.Stream{Name: "g", Concurrency: []int{6}, Bounds: workload.Bounds{Ops: 900, Duration: 20 * time.Second},
		Mix: []workload.OpWeight{{Op: "get", Weight: 1}}, Size: 256, Objects: workload.KeySpace{Prefix: "g/", Count: 30},
		Data: workload.Data{Verify: true}})
	outs, errs := runWorkers(t, l, sp, n)
	for w := range n {
		if errs[w] != nil {
			t.Fatalf("worker %d: %v", w, errs[w])
		}
		if g := total(t, outs[w].Steps[1], "GET"); g.OK != g.Ops || g.Ops != 300 {
			t.Errorf("worker %d: %d GETs, %d ok; want its 300, all ok", w, g.Ops, g.OK)
		}
	}
	foreign := 0
	for k, readers := range l.reads {
		for _, r := range readers {
			if l.writes[k][0] != r {
				foreign++
			}
		}
	}
	if foreign < 300 { // two thirds of 900 reads, give or take, are of others' objects
		t.Errorf("only %d of 900 reads were of objects another worker prepared", foreign)
	}
}

// A COSBench work bound to a driver runs whole on that driver's worker;
// works without one are shared.
func TestDriversRunTheirWorksWhole(t *testing.T) {
	l := newLedger()
	work := func(name, driver string, ops int64) workload.Stream {
		return workload.Stream{Name: name, Driver: driver, Concurrency: []int{2}, Bounds: workload.Bounds{Ops: ops, Duration: 20 * time.Second},
			Mix: []workload.OpWeight{{Op: "put", Weight: 1}}, Size: 100, Objects: workload.KeySpace{Prefix: name + "/"}}
	}
	sp := workload.Spec{Stages: []workload.Stage{{Name: "main", Kind: workload.KindMain, Streams: []workload.Stream{
		work("a", "driver1", 30), work("b", "driver2", 20), work("shared", "", 40)}}}}
	outs, errs := runWorkers(t, l, sp, 2)
	want := []map[string]int64{{"a": 30, "shared": 20}, {"b": 20, "shared": 20}}
	for w := range 2 {
		if errs[w] != nil {
			t.Fatalf("worker %d: %v", w, errs[w])
		}
		got := map[string]int64{}
		for _, s := range outs[w].Steps[0].Streams {
			got[s.Name] = s.Totals[0].Ops
		}
		if len(got) != len(want[w]) || got["a"] != want[w]["a"] || got["b"] != want[w]["b"] || got["shared"] != want[w]["shared"] {
			t.Errorf("worker %d ran %v, want %v", w, got, want[w])
		}
	}
}
