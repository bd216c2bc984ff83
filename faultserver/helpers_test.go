package faultserver_test

import (
	"context"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/objbench/objbench/faultserver"
	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/payload"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage/s3"
	"github.com/objbench/objbench/workload"
)

const ns = "objbench/fidelity/"

func startServer(t *testing.T, cfg faultserver.Config) (*faultserver.Server, *s3.Store) {
	t.Helper()
	ctx := context.Background()
	srv, err := faultserver.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if err := srv.Close(cctx); err != nil {
			t.Logf("close: %v", err)
		}
	})
	st, err := s3.New(ctx, s3.Config{Endpoint: srv.Endpoint(), Bucket: srv.Bucket(), AccessKey: "a", SecretKey: "b",
		Region: "us-east-1", PathStyle: true, MaxConns: 128})
	if err != nil {
		t.Fatal(err)
	}
	return srv, st
}

// runMain measures sp against srv (see faultserver.Measure).
func runMain(t *testing.T, srv *faultserver.Server, st *s3.Store, sp workload.Spec, grace time.Duration) result.Step {
	t.Helper()
	blk, err := payload.NewBlock(1<<20, 7, 0)
	if err != nil {
		t.Fatal(err)
	}
	step, err := faultserver.Measure(context.Background(), srv, faultserver.LoadgenRunner(loadgen.Config{Store: st, Spec: sp,
		Namespace: ns, Block: blk, Seed: 11, Grace: grace}))
	if err != nil {
		t.Fatal(err)
	}
	return step
}

func opTotal(t *testing.T, s result.Step, op string) result.OpTotal {
	t.Helper()
	for _, o := range s.Streams[0].Totals {
		if o.Op == op {
			return o
		}
	}
	t.Fatalf("no %s totals in %+v", op, s.Streams[0].Totals)
	return result.OpTotal{}
}

// heldHistogram is the truth: what the server held each successful
// request of method for, in the client's histogram geometry.
func heldHistogram(events []faultserver.Event, method string) *hdr.Histogram {
	h := hdr.New(1, int64(time.Hour/time.Microsecond), 3)
	for _, e := range events {
		if e.Method == method && e.Status/100 == 2 && e.Fault == faultserver.None {
			_ = h.RecordValue(max(int64(e.Held()/time.Microsecond), 1))
		}
	}
	return h
}

// comparePercentiles logs got against the truth histogram at p50, p90,
// p99 and p99.9 and reports whether each lies within rel of the truth or
// abs, whichever is larger.
func comparePercentiles(t *testing.T, label string, got result.Percentiles, truth *hdr.Histogram, rel float64, abs time.Duration) bool {
	t.Helper()
	ok := true
	for _, c := range faultserver.ComparePercentiles(got, truth, rel, abs) {
		status := "ok"
		if !c.Within {
			status, ok = "OUT OF BOUNDS", false
		}
		d := c.Got - c.Truth
		t.Logf("%s %-5s truth %8.3f ms measured %8.3f ms error %+7.3f ms (%+.2f%%, bound ±%.3f ms) %s", label, c.Name,
			float64(c.Truth)/1e3, float64(c.Got)/1e3, float64(d)/1e3, 100*float64(d)/float64(max(c.Truth, 1)), float64(c.Tolerance)/1e3, status)
	}
	return ok
}

func countEvents(events []faultserver.Event, method string) (byFault map[faultserver.Fault]int64, ok int64) {
	byFault = map[faultserver.Fault]int64{}
	for _, e := range events {
		if e.Method != method {
			continue
		}
		byFault[e.Fault]++
		if e.Fault == faultserver.None && e.Status/100 == 2 {
			ok++
		}
	}
	return byFault, ok
}

func getStream(workers int, b workload.Bounds, size int64) workload.Stream {
	return workload.Stream{Name: "g", Mix: []workload.OpWeight{{Op: "get", Weight: 1}}, Concurrency: []int{workers},
		Bounds: b, Objects: workload.KeySpace{Prefix: "g/", Count: 32}, Size: size}
}

func servedHistogram(events []faultserver.Event, method string) *hdr.Histogram {
	return faultserver.Served(events, method)
}

type workloadTotals struct {
	get    result.OpTotal
	events []faultserver.Event
}

// timingCheck reports a failed timing assertion: an error, or under the
// race detector (which slows and deschedules the client and the server
// beside it unpredictably) only a log line. Counts are asserted always.
func timingCheck(t *testing.T) func(format string, a ...any) {
	if raceEnabled {
		return func(format string, a ...any) { t.Logf("race detector on, not asserted: "+format, a...) }
	}
	return t.Errorf
}
