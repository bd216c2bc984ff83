package metrics_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/storage"
)

// BenchmarkRecord is the metrics path of one op: its latency, TTFB and
// tick counted in its worker's shard. It must not allocate.
func BenchmarkRecord(b *testing.B) {
	start := time.Now()
	s := metrics.NewSeries(start)
	r := s.NewRecorder()
	res := metrics.Result{Op: metrics.OpGet, Bytes: 4096}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		at := start.Add(time.Duration(i) * 20 * time.Microsecond) // 50,000 ops/s, seconds turning over
		res.Start, res.FirstByte, res.End = at, at.Add(300*time.Microsecond), at.Add(400*time.Microsecond)
		r.Record(&res)
	}
}

// BenchmarkRecordPhases is BenchmarkRecord with a network store's request
// phases, recorded into the shard's per-step histograms: it must not
// allocate either, and costs seven histogram records more.
func BenchmarkRecordPhases(b *testing.B) {
	start := time.Now()
	s := metrics.NewSeries(start)
	r := s.NewRecorder()
	ph := storage.Phases{Send: 10 * time.Microsecond, Wait: 250 * time.Microsecond, Receive: 40 * time.Microsecond}
	res := metrics.Result{Op: metrics.OpGet, Bytes: 4096, Phases: &ph}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		at := start.Add(time.Duration(i) * 20 * time.Microsecond)
		res.Start, res.FirstByte, res.End = at, at.Add(300*time.Microsecond), at.Add(400*time.Microsecond)
		r.Record(&res)
	}
}

// BenchmarkRecordParallel records from as many workers as GOMAXPROCS at
// once, each with its own recorder, as loadgen's workers do.
func BenchmarkRecordParallel(b *testing.B) {
	start := time.Now()
	s := metrics.NewSeries(start)
	var n atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		r := s.NewRecorder()
		res := metrics.Result{Op: metrics.OpGet, Bytes: 4096}
		for pb.Next() {
			at := start.Add(time.Duration(n.Add(1)) * 20 * time.Microsecond)
			res.Start, res.FirstByte, res.End = at, at.Add(300*time.Microsecond), at.Add(400*time.Microsecond)
			r.Record(&res)
		}
	})
}
