package result_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/result"
)

// BenchmarkReadManySteps reads a result of 2,000 one-second steps (a
// long sweep): what report and compare pay per step before they print.
//
//	go test -run x -bench ReadManySteps -benchmem ./result
func BenchmarkReadManySteps(b *testing.B) {
	const steps = 2000
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := &result.Run{RunInfo: result.RunInfo{Schema: result.Version, RunID: "bench", Tool: result.Tool{Name: "objbench"}, Started: start}}
	for i := range steps {
		st := start.Add(time.Duration(i) * 2 * time.Second)
		s := metrics.NewSeries(st)
		rec := s.NewRecorder()
		now := st
		for j := range 200 {
			d := time.Duration(1000+j*37%5000) * time.Microsecond
			rec.Record(&metrics.Result{Op: metrics.OpGet, Start: now, End: now.Add(d), Bytes: 4096})
			now = now.Add(d)
		}
		secs, win := s.Finish()
		r.Steps = append(r.Steps, result.Step{Stage: "main", Kind: result.KindMain, Step: i, Start: st, Elapsed: time.Second,
			Streams: []result.Stream{{Name: "main", Concurrency: 1 + i%64, Seconds: secs, Window: win}}})
	}
	path := filepath.Join(b.TempDir(), "r.json")
	if err := result.Write(path, r); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := result.Read(path); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/steps/1000, "µs/step")
}
