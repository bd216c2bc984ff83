package loadgen_test

import (
	"context"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/mem"
	"github.com/objbench/objbench/workload"
)

// sliceOps is a trace as the load generator takes it.
type sliceOps struct {
	ops []loadgen.ReplayOp
	i   int
}

func (s *sliceOps) Next() (loadgen.ReplayOp, bool) {
	if s.i >= len(s.ops) {
		return loadgen.ReplayOp{}, false
	}
	s.i++
	return s.ops[s.i-1], true
}

func (s *sliceOps) Err() error { return nil }

// holdingStore holds every write until another op of its key arrives or
// hold has passed, and notes each op that arrived while an op of its key
// it must follow was still in flight: a write beside anything, a read
// beside a write.
type holdingStore struct {
	storage.Store
	hold time.Duration

	mu       sync.Mutex
	inFlight map[string][]bool // per key: the ops in flight, true for a write
	arrived  map[string]chan struct{}
	overlaps []string
}

func (h *holdingStore) begin(op, key string, write bool) (end func(), arrived chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, w := range h.inFlight[key] {
		if w || write {
			h.overlaps = append(h.overlaps, fmt.Sprintf("%s %s began while a %s of it was in flight", op, key,
				map[bool]string{true: "write", false: "read"}[w]))
			break
		}
	}
	if c := h.arrived[key]; c != nil {
		close(c)
		delete(h.arrived, key)
	}
	if write {
		arrived = make(chan struct{})
		h.arrived[key] = arrived
	}
	h.inFlight[key] = append(h.inFlight[key], write)
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		fl := h.inFlight[key]
		for i, w := range fl {
			if w == write {
				h.inFlight[key] = append(fl[:i], fl[i+1:]...)
				break
			}
		}
		if h.arrived[key] == arrived {
			delete(h.arrived, key)
		}
	}, arrived
}

// held waits until another op of key arrives, or hold passes.
func (h *holdingStore) held(ctx context.Context, arrived chan struct{}) {
	t := time.NewTimer(h.hold)
	defer t.Stop()
	select {
	case <-arrived:
	case <-t.C:
	case <-ctx.Done():
	}
}

func (h *holdingStore) Put(ctx context.Context, key string, body io.Reader, size int64, o storage.PutOptions) (storage.ObjectInfo, error) {
	end, arrived := h.begin("PUT", key, true)
	defer end()
	h.held(ctx, arrived)
	return h.Store.Put(ctx, key, body, size, o)
}

func (h *holdingStore) Delete(ctx context.Context, key string) error {
	end, arrived := h.begin("DELETE", key, true)
	defer end()
	h.held(ctx, arrived)
	return h.Store.Delete(ctx, key)
}

func (h *holdingStore) Get(ctx context.Context, key string, o storage.GetOptions, w io.Writer) (int64, error) {
	end, _ := h.begin("GET", key, false)
	defer end()
	return h.Store.Get(ctx, key, o, w)
}

func (h *holdingStore) Stat(ctx context.Context, key string) (storage.ObjectInfo, error) {
	end, _ := h.begin("STAT", key, false)
	defer end()
	return h.Store.Stat(ctx, key)
}

// A trace's ops on one key keep its order however long each takes in the
// replay: a PUT, then the HEAD and GETs of its key, then its DELETE, all
// due at once (an access log's second, replayed as a burst), never
// overlap as the store sees them, and none fails; ops of other keys go on
// beside them. Without the order, the HEAD reached the store while the
// PUT was held and found nothing. Open loop, paced and at full speed.
func TestReplayKeepsTheOrderOfOpsOnAKey(t *testing.T) {
	k, other := ns+"replay/k", ns+"replay/other"
	trace := []loadgen.ReplayOp{
		{Op: metrics.OpPut, Key: k, Size: 100},
		{Op: metrics.OpStat, Key: k, Size: 100},
		{Op: metrics.OpGet, Key: k, Size: 100},
		{Op: metrics.OpGet, Key: k, Size: 100},
		{Op: metrics.OpPut, Key: other, Size: 50},
		{Op: metrics.OpDelete, Key: k},
		{Op: metrics.OpStat, Key: other, Size: 50},
		{Op: metrics.OpPut, Key: k, Size: 200},
		{Op: metrics.OpGet, Key: k, Size: 200},
	}
	for _, mode := range []string{"open loop", "paced", "max speed"} {
		t.Run(mode, func(t *testing.T) {
			st := &holdingStore{Store: mem.New(), hold: 200 * time.Millisecond, inFlight: map[string][]bool{}, arrived: map[string]chan struct{}{}}
			rp := &loadgen.Replay{Stream: "replay", Ops: &sliceOps{ops: trace}, Paced: mode == "paced", MaxSpeed: mode == "max speed"}
			main := workload.Stream{Name: "replay", Mix: []workload.OpWeight{{Op: "put", Weight: 1}}, Concurrency: []int{4},
				Bounds: workload.Bounds{Ops: int64(len(trace))}, Size: 100, Objects: workload.KeySpace{Prefix: "replay/"}}
			sp := workload.Spec{Stages: []workload.Stage{
				{Name: "main", Kind: result.KindMain, Streams: []workload.Stream{main}},
				{Name: "cleanup", Kind: result.KindCleanup},
			}}
			cfg := config(t, st, sp)
			cfg.Replay = rp
			out, err := loadgen.Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			var issued, failed int64
			for _, s := range out.Steps {
				if s.Stage != "main" {
					continue
				}
				for _, str := range s.Streams {
					for _, o := range str.Totals {
						issued += o.Ops
						failed += o.Ops - o.OK
						if o.Ops != o.OK {
							t.Errorf("%s: %d of %d failed: %v", o.Op, o.Ops-o.OK, o.Ops, o.Errors)
						}
					}
				}
			}
			if issued != int64(len(trace)) || failed != 0 {
				t.Errorf("%d ops issued, %d failed; want %d, none failed", issued, failed, len(trace))
			}
			for _, o := range st.overlaps {
				t.Error(o)
			}
			// At least the STAT after the held PUT waited; at most the 6
			// later ops of k and other's STAT.
			if h := rp.Held(); h < 1 || h > 7 {
				t.Errorf("%d ops waited for an earlier op of their key, want 1 to 7", h)
			}
		})
	}
}
