package merge_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/resulttest"
	"github.com/objbench/objbench/merge"
	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
)

// Phases recorded by several workers' files merge into exactly what one
// process recording every request would hold: counts and every
// percentile of every phase, and the step's connections summed.
func TestMergePhasesIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	one := metrics.NewSeries(resulttest.StoreT0)
	oneRec := one.NewRecorder()
	var parts []*result.Run
	var conns result.Connections
	for w := range 3 {
		s := metrics.NewSeries(resulttest.StoreT0)
		rec := s.NewRecorder()
		for i := range 500 + w*100 {
			ph := storage.Phases{Send: time.Duration(rng.IntN(200)) * time.Microsecond, Wait: time.Duration(rng.IntN(20000)) * time.Microsecond,
				Receive: time.Duration(rng.IntN(900)) * time.Microsecond}
			if i%50 == 0 {
				ph.NewConn, ph.Connect, ph.TLS = true, time.Duration(100+rng.IntN(300))*time.Microsecond, 2*time.Millisecond
				ph.TLSResumed = i%100 == 0
			}
			res := metrics.Result{Op: metrics.OpGet, Start: resulttest.StoreT0, End: resulttest.StoreT0.Add(time.Duration(i) * time.Millisecond), Phases: &ph}
			rec.Record(&res)
			oneRec.Record(&res)
		}
		secs, win := s.Finish()
		str := result.Stream{Name: "g", Concurrency: 1, Seconds: secs, Phases: s.Phases()}
		if err := str.SetWindow(win); err != nil {
			t.Fatal(err)
		}
		c := &result.Connections{Requests: uint64(500 + w*100), Opened: uint64(w + 1), Reused: 10, TLSHandshakes: 2, TLSResumed: 1}
		conns.Add(c)
		parts = append(parts, &result.Run{RunInfo: result.RunInfo{Schema: result.Version, RunID: "r1"}, Worker: &result.Worker{Rank: w, Size: 3},
			Steps: []result.Step{{Stage: "main", Kind: result.KindMain, Start: resulttest.StoreT0, Elapsed: time.Second, Streams: []result.Stream{str}, Connections: c}}})
	}
	merged, err := merge.Runs(parts, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := merged.Steps[0].Streams[0].Phases
	want := one.Phases()
	if len(got) != 1 || len(want) != 1 {
		t.Fatalf("phases: merged %d ops, one process %d", len(got), len(want))
	}
	g, w := got[0], want[0]
	if g.Requests != w.Requests || g.NewConns != w.NewConns || g.Resumed != w.Resumed || g.Requests != 1800 || g.NewConns != 36 || g.Resumed != 18 {
		t.Errorf("merged %d requests, %d new connections, %d resumed; one process %d, %d, %d", g.Requests, g.NewConns, g.Resumed, w.Requests, w.NewConns, w.Resumed)
	}
	for i, name := range result.PhaseNames {
		hg, err1 := g.Histogram(i)
		hw, err2 := w.Histogram(i)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if (hg == nil) != (hw == nil) {
			t.Errorf("%s: merged %v, one process %v", name, hg != nil, hw != nil)
			continue
		}
		if hg == nil {
			continue
		}
		for _, q := range []float64{0, 50, 90, 99, 99.9, 100} {
			if a, b := hg.ValueAtQuantile(q), hw.ValueAtQuantile(q); a != b || hg.TotalCount() != hw.TotalCount() {
				t.Errorf("%s p%v: merged %d µs of %d, one process %d µs of %d", name, q, a, hg.TotalCount(), b, hw.TotalCount())
			}
		}
	}
	if c := merged.Steps[0].Connections; c == nil || *c != conns {
		t.Errorf("connections merged %+v, want %+v", c, conns)
	}
}
