package metrics_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
)

// A property of the window: whatever the step length, the number of
// workers and when their ops end, the windowed rate is the successful ops
// that ended inside the window divided by the window's length, exactly,
// and the window is the rule's: from the latest first op end to the
// earliest last op end, on ticks.
func TestWindowedRateIsOpsInWindowOverItsLength(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 150 {
		workers := 1 + rng.IntN(12)
		step := time.Duration(rng.Int64N(int64(12*time.Second))) + 20*time.Millisecond
		meanOp := time.Duration(rng.Int64N(int64(50*time.Millisecond))) + 50*time.Microsecond
		s := metrics.NewSeries(t0)
		type op struct {
			end   time.Duration
			bytes int64
			ok    bool
		}
		var ops []op
		recs := make([]*metrics.Recorder, workers)
		firsts, lasts := make([]time.Duration, workers), make([]time.Duration, workers)
		clocks := make([]time.Duration, workers)
		for w := range recs {
			recs[w] = s.NewRecorder()
			clocks[w] = time.Duration(rng.Int64N(int64(step/4) + 1)) // staggered starts
		}
		var sweepAt time.Duration
		for {
			w := rng.IntN(workers) // workers interleave, each in its own time order
			if clocks[w] >= step {
				done := true
				for _, c := range clocks {
					done = done && c >= step
				}
				if done {
					break
				}
				continue
			}
			d := time.Duration(rng.ExpFloat64()*float64(meanOp)) + time.Microsecond
			start := clocks[w]
			clocks[w] += d
			o := op{end: clocks[w], bytes: rng.Int64N(1 << 20), ok: rng.IntN(10) > 0}
			res := metrics.Result{Op: metrics.OpGet, Start: at(start), End: at(o.end), Bytes: o.bytes}
			if !o.ok {
				res.Err = storage.ErrNotFound
			}
			recs[w].Record(&res)
			if firsts[w] == 0 {
				firsts[w] = o.end
			}
			lasts[w] = o.end
			ops = append(ops, o)
			if o.end > sweepAt+time.Second { // a collector sweeping as the run goes
				sweepAt = o.end
				s.Sweep(at(sweepAt))
			}
		}
		secs, win := s.Finish()
		first, last := slices.Max(firsts), slices.Min(lasts)
		lo := math.Ceil(first.Seconds()*100-1e-6) / 100
		hi := math.Floor(last.Seconds()*100+1e-6) / 100
		if hi > lo && (math.Abs(win.Start-lo) > 1e-9 || math.Abs(win.End-hi) > 1e-9) {
			t.Fatalf("trial %d: window %+v, want %v..%v (first ops end by %v, first worker stops at %v)", trial, win, lo, hi, first, last)
		}
		totals, err := result.Summarize(secs, win)
		if err != nil {
			t.Fatal(err)
		}
		var inOps, inBytes int64
		for _, o := range ops {
			e := o.end.Seconds()
			if o.ok && e >= win.Start-1e-9 && e < win.End-1e-9 {
				inOps++
				inBytes += o.bytes
			}
		}
		if len(totals) == 0 {
			continue
		}
		g := totals[0]
		if g.WindowOps != float64(inOps) || g.WindowBytes != float64(inBytes) {
			t.Fatalf("trial %d (%d workers, %v step): window %+v holds %v ops, %v bytes; the ops that ended in it: %d, %d bytes",
				trial, workers, step, win, g.WindowOps, g.WindowBytes, inOps, inBytes)
		}
		if d := win.Duration(); d > 0 && math.Abs(g.OpsPerSec-float64(inOps)/d) > 1e-9*g.OpsPerSec {
			t.Fatalf("trial %d: %v ops/s, want %d / %v s", trial, g.OpsPerSec, inOps, d)
		}
	}
}
