package bench_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/payload"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage/s3"
	"github.com/objbench/objbench/workload"
)

// memoryAt runs workers GET workers for 3 s against the canned server
// holding every answer 100 ms (all workers in flight at once) and returns
// the process's heap and stack in use, and its goroutines, sampled in the
// middle of the step.
func memoryAt(b *testing.B, ep string, workers int) (heap, stack uint64, goroutines int) {
	b.Helper()
	ctx := context.Background()
	st, err := s3.New(ctx, s3.Config{Endpoint: ep, Bucket: "bench", PathStyle: true, Region: "us-east-1",
		AccessKey: "benchkey", SecretKey: "benchsecret", MaxConns: workers})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	block, err := payload.NewBlock(payload.DefaultBlockSize, 1, 0)
	if err != nil {
		b.Fatal(err)
	}
	stream := workload.Stream{Name: "get", Mix: []workload.OpWeight{{Op: "get", Weight: 1}}, Concurrency: []int{workers},
		Size: objSize, Objects: workload.KeySpace{Prefix: "data/", Existing: true}, Bounds: workload.Bounds{Duration: 3 * time.Second}}
	var ms runtime.MemStats
	sampled := false
	_, err = loadgen.Run(ctx, loadgen.Config{Store: st, Block: block, Namespace: "objbench/bench/",
		Spec: workload.Spec{Stages: []workload.Stage{{Name: "main", Kind: result.KindMain, Streams: []workload.Stream{stream}}}},
		OnSecond: func(_ string, s result.Second) {
			if s.T == 1 && !sampled { // every worker has been in flight for a second
				sampled = true
				runtime.GC()
				runtime.ReadMemStats(&ms)
				goroutines = runtime.NumGoroutine()
			}
		}})
	if err != nil || !sampled {
		b.Fatalf("run: %v (sampled %v)", err, sampled)
	}
	return ms.HeapInuse, ms.StackInuse, goroutines
}

// BenchmarkMemoryPerWorker measures what one more worker costs: the
// growth of heap and stack in use from 500 to 2,500 workers, all in
// flight, divided by the 2,000 workers added. Run it with -benchtime 1x.
func BenchmarkMemoryPerWorker(b *testing.B) {
	ep := startCanned(b, cannedDelayEnv+"=100ms")
	for range b.N {
		h0, s0, g0 := memoryAt(b, ep, 500)
		h1, s1, g1 := memoryAt(b, ep, 2500)
		per := func(a, z uint64) float64 { return (float64(z) - float64(a)) / 2000 }
		b.ReportMetric(per(h0, h1), "heap-B/worker")
		b.ReportMetric(per(s0, s1), "stack-B/worker")
		b.ReportMetric(per(h0+s0, h1+s1), "B/worker")
		b.ReportMetric(float64(g1-g0)/2000, "goroutines/worker")
	}
}
