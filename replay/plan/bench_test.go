package plan_test

import (
	"fmt"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/oplog"
	"github.com/objbench/objbench/replay/plan"
)

// BenchmarkPlan reads a b.N-line op log twice, as a replay does (plan,
// then the ops streamed), over b.N/10 distinct keys, and reports the
// peak heap: the ops are streamed, the key set (for what to prepare) is
// what grows. A 10-million-line log:
//
//	go test -run '^$' -bench Plan -benchtime 10000000x ./replay/plan
func BenchmarkPlan(b *testing.B) {
	path := filepath.Join(b.TempDir(), "ops.jsonl.zst")
	w, err := oplog.Create(path, oplog.Options{})
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	keys := max(b.N/10, 1)
	ops := []metrics.Op{metrics.OpGet, metrics.OpGet, metrics.OpGet, metrics.OpPut, metrics.OpStat}
	for i := range b.N {
		rec := oplog.Record{Start: t0.Add(time.Duration(i) * 100 * time.Microsecond), Op: ops[i%len(ops)],
			Key: fmt.Sprintf("tenant-%d/object-%08d", i%7, (i*7919)%keys), Size: 4096, Latency: time.Millisecond}
		w.Record(0, &rec)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	var peak atomic.Uint64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	b.ResetTimer()
	p, err := plan.New(plan.Options{Paths: []string{path}, Speed: 0, Namespace: "objbench/run/"})
	if err != nil {
		b.Fatal(err)
	}
	src, err := p.Source()
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for {
		if _, ok := src.Next(); !ok {
			break
		}
		n++
	}
	b.StopTimer()
	close(done)
	<-sampled
	_ = src.Close()
	if n != b.N {
		b.Fatalf("streamed %d ops of %d", n, b.N)
	}
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(2*b.N)/b.Elapsed().Seconds(), "lines/s")
	b.ReportMetric(float64(p.Prepared()), "prepared")
	p.Close()
}
