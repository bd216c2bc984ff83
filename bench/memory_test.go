package bench_test

import (
	"context"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/payload"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage/s3"
	"github.com/objbench/objbench/workload"
)

// memoryAt runs workers GET workers for up to 5 s against the canned
// server holding every answer 100 ms (all workers in flight at once) and
// returns the process's memory statistics, the stack bytes the GC scans
// and the goroutines, sampled after a GC in the first second at whose end
// every worker is running.
func memoryAt(b *testing.B, ep string, workers int) (ms runtime.MemStats, stackScan uint64, goroutines int) {
	b.Helper()
	ctx := context.Background()
	st, err := s3.New(ctx, s3.Config{Endpoint: ep, Bucket: "bench", PathStyle: true, Region: "us-east-1",
		AccessKey: "benchkey", SecretKey: "benchsecret", MaxConns: max(workers, 2048)}) // GETs sent apart at both counts
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	block, err := payload.NewBlock(payload.DefaultBlockSize, 1, 0)
	if err != nil {
		b.Fatal(err)
	}
	stream := workload.Stream{Name: "get", Mix: []workload.OpWeight{{Op: "get", Weight: 1}}, Concurrency: []int{workers},
		Size: objSize, Objects: workload.KeySpace{Prefix: "data/", Existing: true}, Bounds: workload.Bounds{Duration: 5 * time.Second}}
	sampled := false
	_, err = loadgen.Run(ctx, loadgen.Config{Store: st, Block: block, Namespace: "objbench/bench/",
		Spec: workload.Spec{Stages: []workload.Stage{{Name: "main", Kind: result.KindMain, Streams: []workload.Stream{stream}}}},
		OnSecond: func(_ string, s result.Second) {
			if s.T >= 1 && !sampled && runtime.NumGoroutine() >= workers { // every worker has been in flight
				sampled = true
				runtime.GC()
				runtime.ReadMemStats(&ms)
				scan := []metrics.Sample{{Name: "/gc/scan/stack:bytes"}}
				metrics.Read(scan)
				stackScan = scan[0].Value.Uint64()
				goroutines = runtime.NumGoroutine()
			}
		}})
	if err != nil || !sampled {
		b.Fatalf("run: %v (sampled %v)", err, sampled)
	}
	return ms, stackScan, goroutines
}

// BenchmarkMemoryPerWorker measures what one more worker costs: the
// growth from 500 to 2,500 workers, all in flight, divided by the 2,000
// workers added, of the heap and stacks in use, of the stack memory ever
// taken (stacksys: a worker whose stack grew once keeps the process's
// peak up, as dialing on the worker's goroutine did, 16 KiB each), of the
// stack bytes the GC scans (stackscan: they count into its goal as heap
// does), of the GC's goal (gcgoal: the heap the process may reach before
// the next GC, headroom included) and of all memory taken from the OS
// (sys). Run it with -benchtime 1x. A waiting worker's stack is 4 KiB
// (its GET sent apart, the deep parts on runners: loadgen/splitget.go);
// the benchmark fails if it is 6 KiB or more.
func BenchmarkMemoryPerWorker(b *testing.B) {
	ep := startCanned(b, cannedDelayEnv+"=100ms")
	for range b.N {
		m0, s0, g0 := memoryAt(b, ep, 500)
		m1, s1, g1 := memoryAt(b, ep, 2500)
		per := func(a, z uint64) float64 { return (float64(z) - float64(a)) / 2000 }
		b.ReportMetric(per(m0.HeapInuse, m1.HeapInuse), "heap-B/worker")
		b.ReportMetric(per(m0.StackInuse, m1.StackInuse), "stack-B/worker")
		b.ReportMetric(per(m0.StackSys, m1.StackSys), "stacksys-B/worker")
		b.ReportMetric(per(s0, s1), "stackscan-B/worker")
		b.ReportMetric(per(m0.NextGC, m1.NextGC), "gcgoal-B/worker")
		b.ReportMetric(per(m0.HeapInuse+m0.StackInuse, m1.HeapInuse+m1.StackInuse), "B/worker")
		b.ReportMetric(per(m0.Sys, m1.Sys), "sys-B/worker")
		b.ReportMetric(float64(g1-g0)/2000, "goroutines/worker")
		if st := per(m0.StackInuse, m1.StackInuse); st >= 6<<10 {
			b.Errorf("%.0f B of stack per worker: a waiting worker's stack grew back to 8 KiB", st)
		}
	}
}
