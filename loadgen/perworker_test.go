package loadgen_test

import (
	"context"
	"testing"
	"time"

	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage/mem"
	"github.com/objbench/objbench/workload"
)

func putStream(workers int, b workload.Bounds) workload.Spec {
	return workload.Spec{Stages: []workload.Stage{{Name: "main", Kind: result.KindMain, Streams: []workload.Stream{{
		Name: "w", Concurrency: []int{workers}, Bounds: b, Mix: []workload.OpWeight{{Op: "put", Weight: 1}},
		Size: 3000, Objects: workload.KeySpace{Prefix: "p/"}}}}}}
}

// Per-worker bounds are COSBench's totalOps and totalBytes: each worker
// does its own part (the total divided by the workers, rounded down:
// dev/cosbench-driver/src/com/intel/cosbench/driver/agent/WorkAgent.java,
// initLimites), and stops once its finished ops reach it (trySummary, after
// each op: the op that crosses a byte part completes). totalBytes=10000
// with 3 workers of 3000-byte objects is 3333 bytes a worker, 2 PUTs each:
// 6, where a shared count stops at 4.
func TestPerWorkerBoundsAreCOSBenchs(t *testing.T) {
	for _, c := range []struct {
		name          string
		workers       int
		bounds        workload.Bounds
		puts, bytes   int64
		stoppedBy     string
		shareProcsOf3 bool
	}{
		{"ops per worker", 8, workload.Bounds{Ops: 24, PerWorker: true}, 24, 24 * 3000, "ops", false},
		{"bytes per worker", 3, workload.Bounds{Bytes: 9999, PerWorker: true}, 6, 6 * 3000, "bytes", false},
		{"bytes shared", 3, workload.Bounds{Bytes: 9999}, 4, 4 * 3000, "bytes", false},
		{"ops per worker over 3 processes", 8, workload.Bounds{Ops: 24, PerWorker: true}, 24, 24 * 3000, "ops", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.bounds.Duration = time.Minute // a safety net: the op and byte parts end it
			sp := putStream(c.workers, c.bounds)
			var puts, bytes int64
			if c.shareProcsOf3 {
				l := newLedger()
				outs, errs := runWorkers(t, l, sp, 3)
				for w, out := range outs {
					if errs[w] != nil {
						t.Fatalf("worker %d: %v", w, errs[w])
					}
					s := out.Steps[0].Streams[0]
					p := total(t, out.Steps[0], "PUT")
					// 8 workers over 3 processes: 3, 3 and 2, each doing 3 PUTs
					if want := int64(s.Concurrency) * 3; p.OK != want || s.StoppedBy != c.stoppedBy {
						t.Errorf("process %d with %d workers: %d PUTs, stopped by %s; want %d", w, s.Concurrency, p.OK, s.StoppedBy, want)
					}
					puts, bytes = puts+p.OK, bytes+p.Bytes
				}
			} else {
				out, err := loadgen.Run(context.Background(), config(t, mem.New(), sp))
				if err != nil {
					t.Fatal(err)
				}
				p := total(t, out.Steps[0], "PUT")
				puts, bytes = p.OK, p.Bytes
				if s := out.Steps[0].Streams[0]; s.StoppedBy != c.stoppedBy {
					t.Errorf("stopped by %s, want %s", s.StoppedBy, c.stoppedBy)
				}
			}
			if puts != c.puts || bytes != c.bytes {
				t.Errorf("%d PUTs of %d bytes; want %d of %d", puts, bytes, c.puts, c.bytes)
			}
		})
	}
}
