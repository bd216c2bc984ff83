package loadgen_test

import (
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/mem"
	"github.com/objbench/objbench/workload"
)

// timedStore notes when each GET returned; each takes about a millisecond.
type timedStore struct {
	storage.Store
	mu   sync.Mutex
	ends []time.Time
}

func (s *timedStore) Get(ctx context.Context, key string, o storage.GetOptions, w io.Writer) (int64, error) {
	time.Sleep(time.Millisecond) // the store's latency, not a synchronisation
	n, err := s.Store.Get(ctx, key, o, w)
	s.mu.Lock()
	s.ends = append(s.ends, time.Now())
	s.mu.Unlock()
	return n, err
}

// TestRampsAreLeftOutOfTheResult: a stream of 4 s with a rampup of 1 s and
// a rampdown of 1 s keeps the ops that ended in seconds 1 and 2 of the
// step, as COSBench keeps those of its runtime.
func TestRampsAreLeftOutOfTheResult(t *testing.T) {
	store := &timedStore{Store: mem.New()}
	sp := spec(workload.Stream{Name: "g", Mix: []workload.OpWeight{{Op: "get", Weight: 1}}, Concurrency: []int{2},
		Bounds: workload.Bounds{Duration: 4 * time.Second}, Objects: workload.KeySpace{Prefix: "g/", Count: 4}, Size: 10})
	sp.Stages[1].Streams[0].Rampup, sp.Stages[1].Streams[0].Rampdown = time.Second, time.Second
	out, err := loadgen.Run(context.Background(), config(t, store, sp))
	if err != nil {
		t.Fatal(err)
	}
	main := out.Steps[1]
	s := main.Streams[0]
	for _, sec := range s.Seconds {
		if sec.T < 1 || sec.T > 2 {
			t.Errorf("second %d is in the result", sec.T)
		}
	}
	if s.Window.Start < 1 || s.Window.End > 3 || s.Window.Duration() < 1.9 {
		t.Errorf("window %+v, want within 1..3 s and about 2 s long", s.Window)
	}
	var inRuntime, all int64
	for _, end := range store.ends {
		if d := end.Sub(main.Start); d >= time.Second && d < 3*time.Second {
			inRuntime++
		}
		if !end.Before(main.Start) {
			all++
		}
	}
	g := total(t, main, "GET")
	t.Logf("%d GETs counted, %d ended in seconds 1-2 by the store's clock, %d in all", g.Ops, inRuntime, all)
	// The store's clock and the recorder's differ by the time between the
	// store's return and the op's record: a few ops per worker at each edge.
	if diff := g.Ops - inRuntime; diff < -8 || diff > 8 || g.OK != g.Ops || all < g.Ops*3/2 {
		t.Errorf("%d GETs counted, %d ended in seconds 1-2 of the step, %d in all", g.Ops, inRuntime, all)
	}
	if len(main.Notes) == 0 {
		t.Error("the step does not say its ramps were left out")
	}
}
