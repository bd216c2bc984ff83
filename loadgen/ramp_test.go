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

// timedStore notes when each GET started and returned; each takes
// 300 ms (the store's latency, not a synchronisation).
type timedStore struct {
	storage.Store
	mu    sync.Mutex
	spans [][2]time.Time
}

func (s *timedStore) Get(ctx context.Context, key string, o storage.GetOptions, w io.Writer) (int64, error) {
	start := time.Now()
	time.Sleep(300 * time.Millisecond)
	n, err := s.Store.Get(ctx, key, o, w)
	s.mu.Lock()
	s.spans = append(s.spans, [2]time.Time{start, time.Now()})
	s.mu.Unlock()
	return n, err
}

// TestRampsAreLeftOutOfTheResult: a stream of 3 s with a rampup of 1 s and
// a rampdown of 1 s counts the ops that started at or after 1 s and ended
// by 2 s into the step, as COSBench counts a sample
// (dev/cosbench-driver/src/com/intel/cosbench/driver/agent/WorkAgent.java,
// onSampleCreated: lbegin >= begin && lbegin < end && curr > begin && curr
// <= end). With ops of 300 ms a worker's ops start near 0, 0.3 ... 0.9,
// 1.2, 1.5, 1.8: two count, where the second an op ended in would count
// three (the one that started at 0.9 s).
func TestRampsAreLeftOutOfTheResult(t *testing.T) {
	store := &timedStore{Store: mem.New()}
	sp := spec(workload.Stream{Name: "g", Mix: []workload.OpWeight{{Op: "get", Weight: 1}}, Concurrency: []int{2},
		Bounds: workload.Bounds{Duration: 3 * time.Second}, Objects: workload.KeySpace{Prefix: "g/", Count: 4}, Size: 10})
	sp.Stages[1].Streams[0].Rampup, sp.Stages[1].Streams[0].Rampdown = time.Second, time.Second
	out, err := loadgen.Run(context.Background(), config(t, store, sp))
	if err != nil {
		t.Fatal(err)
	}
	main := out.Steps[1]
	s := main.Streams[0]
	for _, sec := range s.Seconds {
		if sec.T != 1 {
			t.Errorf("second %d is in the result", sec.T)
		}
	}
	if s.Window.Start < 1 || s.Window.End > 2 {
		t.Errorf("window %+v, want within 1..2 s", s.Window)
	}
	var cosbench, byEnd int64
	for _, sp := range store.spans {
		start, end := sp[0].Sub(main.Start), sp[1].Sub(main.Start)
		if start >= time.Second && start < 2*time.Second && end > time.Second && end <= 2*time.Second {
			cosbench++
		}
		if end >= time.Second && end < 2*time.Second {
			byEnd++
		}
	}
	g := total(t, main, "GET")
	t.Logf("%d GETs counted; by COSBench's rule on the store's clock %d, by the second they ended in %d, of %d", g.Ops, cosbench, byEnd, len(store.spans))
	if g.Ops != cosbench || g.OK != g.Ops || cosbench == byEnd {
		t.Errorf("%d GETs counted, %d by COSBench's rule (%d by the second they ended in)", g.Ops, cosbench, byEnd)
	}
	if len(main.Notes) == 0 {
		t.Error("the step does not say its ramps were left out")
	}
}
