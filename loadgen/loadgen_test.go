package loadgen_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/payload"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/mem"
	"github.com/objbench/objbench/workload"
)

const ns = "objbench/test-run/"

func spec(main workload.Stream) workload.Spec {
	prep := main
	prep.Mix, prep.Rate = nil, nil
	return workload.Spec{Stages: []workload.Stage{
		{Name: "prepare", Kind: result.KindPrepare, Streams: []workload.Stream{prep}},
		{Name: "main", Kind: result.KindMain, Streams: []workload.Stream{main}},
		{Name: "cleanup", Kind: result.KindCleanup},
	}}
}

func config(t *testing.T, store storage.Store, sp workload.Spec) loadgen.Config {
	t.Helper()
	blk, err := payload.NewBlock(1<<20, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	return loadgen.Config{Store: store, Spec: sp, Namespace: ns, Block: blk, Grace: 5 * time.Second}
}

func total(t *testing.T, s result.Step, op string) result.OpTotal {
	t.Helper()
	for _, st := range s.Streams {
		for _, o := range st.Totals {
			if o.Op == op {
				return o
			}
		}
	}
	t.Fatalf("step %s/%d has no %s totals", s.Stage, s.Step, op)
	return result.OpTotal{}
}

func keys(t *testing.T, s storage.Store) []string {
	t.Helper()
	var out []string
	if err := s.List(context.Background(), "", func(o storage.ObjectInfo) error { out = append(out, o.Key); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestGetRunAccountsEveryOpAndCleansOnlyItsNamespace(t *testing.T) {
	store := mem.New()
	ctx := context.Background()
	if _, err := store.Put(ctx, "theirs/keep-me", strings.NewReader("x"), 1, storage.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	sp := spec(workload.Stream{Name: "g", Mix: []workload.OpWeight{{Op: "get", Weight: 1}}, Concurrency: []int{4},
		Bounds: workload.Bounds{Ops: 500}, Objects: workload.KeySpace{Prefix: "g/", Count: 20}, Size: 4096})
	out, err := loadgen.Run(ctx, config(t, store, sp))
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Steps) != 3 {
		t.Fatalf("want prepare, main and cleanup steps; got %d", len(out.Steps))
	}
	if put := total(t, out.Steps[0], "PUT"); put.OK != 20 || put.Bytes != 20*4096 {
		t.Errorf("prepare wrote %d objects, %d bytes; want 20, %d", put.OK, put.Bytes, 20*4096)
	}
	get := total(t, out.Steps[1], "GET")
	if get.Ops != 500 || get.OK != 500 || get.Bytes != 500*4096 || get.Latency.Count != 500 {
		t.Errorf("GET ops=%d ok=%d bytes=%d hist=%d; want 500 ok ops of 4096 bytes", get.Ops, get.OK, get.Bytes, get.Latency.Count)
	}
	if get.TTFB == nil || get.TTFB.Count != 500 {
		t.Errorf("want a TTFB for every GET, got %+v", get.TTFB)
	}
	if out.Steps[1].Streams[0].StoppedBy != "ops" {
		t.Errorf("stopped by %q, want ops", out.Steps[1].Streams[0].StoppedBy)
	}
	if del := total(t, out.Steps[2], "DELETE"); del.OK != 20 {
		t.Errorf("cleanup deleted %d, want 20", del.OK)
	}
	if left := keys(t, store); len(left) != 1 || left[0] != "theirs/keep-me" {
		t.Errorf("after cleanup the store holds %v; want only theirs/keep-me", left)
	}
}

func TestConcurrencySweepRunsOneStepPerValue(t *testing.T) {
	store := mem.New()
	sp := spec(workload.Stream{Name: "p", Mix: []workload.OpWeight{{Op: "put", Weight: 1}}, Concurrency: []int{1, 2, 4},
		Bounds: workload.Bounds{Ops: 40}, Objects: workload.KeySpace{Prefix: "p/"}, Size: 100})
	out, err := loadgen.Run(context.Background(), config(t, store, sp))
	if err != nil {
		t.Fatal(err)
	}
	var conc []int
	for _, s := range out.Steps {
		if s.Kind == result.KindMain {
			conc = append(conc, s.Streams[0].Concurrency)
			if p := total(t, s, "PUT"); p.OK != 40 {
				t.Errorf("step %d: %d PUTs, want 40", s.Step, p.OK)
			}
		}
	}
	if len(conc) != 3 || conc[0] != 1 || conc[1] != 2 || conc[2] != 4 {
		t.Errorf("main steps ran at concurrency %v, want [1 2 4]", conc)
	}
	if left := keys(t, store); len(left) != 0 {
		t.Errorf("cleanup left %d objects", len(left))
	}
}

func TestMixedRunKeepsRatiosAndNeverReadsMissingObjects(t *testing.T) {
	store := mem.New()
	sp := spec(workload.Stream{Name: "m", Concurrency: []int{4}, Bounds: workload.Bounds{Ops: 4000},
		Mix:     []workload.OpWeight{{Op: "get", Weight: 50}, {Op: "put", Weight: 20}, {Op: "stat", Weight: 20}, {Op: "delete", Weight: 10}},
		Objects: workload.KeySpace{Prefix: "m/", Count: 50}, Size: 512})
	out, err := loadgen.Run(context.Background(), config(t, store, sp))
	if err != nil {
		t.Fatal(err)
	}
	main := out.Steps[1]
	want := map[string]float64{"GET": 0.5, "PUT": 0.2, "STAT": 0.2, "DELETE": 0.1}
	var sum int64
	for op, frac := range want {
		o := total(t, main, op)
		sum += o.Ops
		if len(o.Errors) != 0 {
			t.Errorf("%s errors: %v", op, o.Errors)
		}
		if got := float64(o.Ops) / 4000; got < frac-0.04 || got > frac+0.04 {
			t.Errorf("%s share %.3f, want %.2f±0.04", op, got, frac)
		}
	}
	if sum != 4000 {
		t.Errorf("ops across the mix = %d, want 4000", sum)
	}
}

// slowStore makes every op take a while, so a run can be interrupted mid-op.
type slowStore struct {
	storage.Store
	started chan struct{}
	release chan struct{}
}

func (s *slowStore) Get(ctx context.Context, key string, o storage.GetOptions, w io.Writer) (int64, error) {
	select {
	case s.started <- struct{}{}:
	default:
	}
	<-s.release
	return s.Store.Get(ctx, key, o, w)
}

func TestInterruptStopsIssuingFinishesInFlightAndCleansUp(t *testing.T) {
	inner := mem.New()
	store := &slowStore{Store: inner, started: make(chan struct{}, 1), release: make(chan struct{})}
	sp := spec(workload.Stream{Name: "g", Mix: []workload.OpWeight{{Op: "get", Weight: 1}}, Concurrency: []int{2},
		Bounds: workload.Bounds{Duration: time.Hour}, Objects: workload.KeySpace{Prefix: "g/", Count: 4}, Size: 10})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var out *loadgen.Outcome
	var err error
	go func() { out, err = loadgen.Run(ctx, config(t, store, sp)); close(done) }()
	<-store.started // a GET is in flight
	cancel()        // the interrupt
	close(store.release)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("run did not end after the interrupt")
	}
	if err != nil {
		t.Fatal(err)
	}
	if !out.Interrupted || !out.CleanedUp {
		t.Errorf("interrupted=%v cleanedUp=%v, want both", out.Interrupted, out.CleanedUp)
	}
	main := out.Steps[1]
	if g := total(t, main, "GET"); g.OK < 1 || g.OK != g.Ops {
		t.Errorf("in-flight GETs must finish and count: ops=%d ok=%d errors=%v", g.Ops, g.OK, g.Errors)
	}
	if main.Streams[0].StoppedBy != "interrupted" {
		t.Errorf("stopped by %q", main.Streams[0].StoppedBy)
	}
	if left := keys(t, inner); len(left) != 0 {
		t.Errorf("cleanup after interrupt left %v", left)
	}
}

// failingStore fails every STAT.
type failingStore struct{ storage.Store }

func (failingStore) Stat(context.Context, string) (storage.ObjectInfo, error) {
	return storage.ObjectInfo{}, &storage.StatusError{StatusCode: 503, Code: "SlowDown"}
}

func TestMaxErrorsStopsTheRun(t *testing.T) {
	sp := spec(workload.Stream{Name: "s", Mix: []workload.OpWeight{{Op: "stat", Weight: 1}}, Concurrency: []int{1, 2},
		Bounds: workload.Bounds{Duration: time.Hour}, Objects: workload.KeySpace{Prefix: "s/", Count: 2}, Size: 1})
	cfg := config(t, failingStore{mem.New()}, sp)
	cfg.MaxErrors = 25
	out, err := loadgen.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if out.Aborted != "max-errors" {
		t.Fatalf("aborted = %q, want max-errors", out.Aborted)
	}
	st := total(t, out.Steps[1], "STAT")
	if st.Errors["http_503"] < 25 || st.OK != 0 {
		t.Errorf("stat errors %v ok %d; want >=25 http_503 and no ok", st.Errors, st.OK)
	}
	for _, s := range out.Steps {
		if s.Kind == result.KindMain && s.Step == 1 {
			t.Error("the second sweep step ran after max-errors stopped the run")
		}
	}
	if !out.CleanedUp {
		t.Error("cleanup must still run after max-errors")
	}
}

func TestReadingNothingIsAnError(t *testing.T) {
	sp := workload.Spec{Stages: []workload.Stage{{Name: "main", Kind: result.KindMain, Streams: []workload.Stream{{
		Name: "g", Mix: []workload.OpWeight{{Op: "get", Weight: 1}}, Concurrency: []int{1}, Bounds: workload.Bounds{Ops: 1},
		Objects: workload.KeySpace{Prefix: "empty/"}}}}}}
	_, err := loadgen.Run(context.Background(), config(t, mem.New(), sp))
	if err == nil || !strings.Contains(err.Error(), "none exist") {
		t.Fatalf("want an error about missing objects, got %v", err)
	}
	var se *storage.StatusError
	if errors.As(err, &se) {
		t.Fatal("unexpected status error")
	}
}

func TestCleanupWithNothingToDeleteIsEmpty(t *testing.T) {
	store := mem.New()
	ctx := context.Background()
	if _, err := store.Put(ctx, "theirs/a", strings.NewReader("x"), 1, storage.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	sp := workload.Spec{Stages: []workload.Stage{
		{Name: "main", Kind: result.KindMain, Streams: []workload.Stream{{Name: "g", Mix: []workload.OpWeight{{Op: "get", Weight: 1}},
			Concurrency: []int{2}, Bounds: workload.Bounds{Ops: 10}, Objects: workload.KeySpace{Prefix: "theirs/", Existing: true}}}},
		{Name: "cleanup", Kind: result.KindCleanup},
	}}
	out, err := loadgen.Run(ctx, config(t, store, sp))
	if err != nil {
		t.Fatal(err)
	}
	if g := total(t, out.Steps[0], "GET"); g.OK != 10 {
		t.Errorf("read %d existing objects, want 10", g.OK)
	}
	if len(out.Steps) != 2 || len(out.Steps[1].Streams) != 0 || !out.CleanedUp {
		t.Errorf("cleanup with nothing to delete: %+v", out.Steps[len(out.Steps)-1])
	}
	if left := keys(t, store); len(left) != 1 {
		t.Errorf("store holds %v", left)
	}
}
