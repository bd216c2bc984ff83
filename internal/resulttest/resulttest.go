// Package resulttest builds the result files that result's and merge's
// tests read: a run split over workers as metrics records it, and views
// of seconds that compare whatever form their histograms are in. Tests
// only.
package resulttest

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/result"
)

// StoreT0 is when the store's clock starts a SplitRun.
var StoreT0 = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

// SplitRun is the worker files of one run (n workers, a GET step of
// step), and the same ops recorded as one process would: each worker's
// clock is off the store's by a known amount, and starts the step a few
// ms apart from the others.
func SplitRun(t testing.TB, n int, step time.Duration, seed uint64) (parts []*result.Run, whole result.Stream) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	one := metrics.NewSeries(StoreT0)
	for w := range n {
		offset := time.Duration(rng.IntN(800)-400) * time.Millisecond // store = local + offset
		stagger := time.Duration(rng.IntN(8)) * time.Millisecond
		localStart := StoreT0.Add(stagger - offset)
		s := metrics.NewSeries(localStart)
		rec, oneRec := s.NewRecorder(), one.NewRecorder()
		clock := time.Duration(0)
		for clock < step {
			d := time.Duration(rng.ExpFloat64()*float64(3*time.Millisecond)) + 100*time.Microsecond
			res := metrics.Result{Op: metrics.OpGet, Start: localStart.Add(clock), End: localStart.Add(clock + d), Bytes: 4096}
			rec.Record(&res)
			abs := res
			abs.Start, abs.End = res.Start.Add(offset), res.End.Add(offset)
			oneRec.Record(&abs)
			clock += d
		}
		secs, win := s.Finish()
		str := result.Stream{Name: "g", Concurrency: 2, Seconds: secs}
		if err := str.SetWindow(win); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, &result.Run{RunInfo: result.RunInfo{Schema: result.Version, RunID: "r1"},
			Worker: &result.Worker{Rank: w, Size: n, ClockOffset: offset},
			Steps:  []result.Step{{Stage: "main", Kind: result.KindMain, Start: localStart, Elapsed: step, Streams: []result.Stream{str}}}})
	}
	secs, win := one.Finish()
	whole = result.Stream{Name: "g", Seconds: secs}
	if err := whole.SetWindow(win); err != nil {
		t.Fatal(err)
	}
	return parts, whole
}

// RichParts is n workers' parts of a run as SplitRun records them, with
// errors, drops and response times in some seconds so every field of a
// record is packed.
func RichParts(t testing.TB, n int) []*result.Run {
	t.Helper()
	parts, _ := SplitRun(t, n, 4*time.Second, uint64(10+n))
	for _, p := range parts {
		s := &p.Steps[0].Streams[0]
		for i := range s.Seconds {
			for j := range s.Seconds[i].Ops {
				o := &s.Seconds[i].Ops[j]
				o.TTFB = o.Latency
				if i%2 == 1 {
					o.Errors = map[string]int64{"timeout": 2, "http 503": int64(i)}
					o.Ops += 2 + int64(i)
					o.Dropped = int64(i)
					o.Response = o.Latency
				}
			}
		}
		if err := s.SetWindow(s.Window); err != nil {
			t.Fatal(err)
		}
	}
	return parts
}

// SecondView is what one op's second holds, histograms as their counts
// (their forms differ from file to file).
type SecondView struct {
	T                   int64
	Op                  string
	Ops, Bytes, Dropped int64
	Errors              map[string]int64
	Ticks               *result.Ticks
	Hists               [3]string
}

// ViewSeconds is secs as SecondViews, a second without ops as one view
// of its T alone.
func ViewSeconds(t testing.TB, secs []result.Second) []SecondView {
	t.Helper()
	var out []SecondView
	for _, s := range secs {
		for _, o := range s.Ops {
			v := SecondView{T: s.T, Op: o.Op, Ops: o.Ops, Bytes: o.Bytes, Dropped: o.Dropped, Errors: o.Errors, Ticks: o.Ticks}
			for k, enc := range []string{o.Latency, o.TTFB, o.Response} {
				if enc == "" {
					continue
				}
				h, err := result.DecodeHistogram(enc)
				if err != nil {
					t.Fatal(err)
				}
				v.Hists[k] = fmt.Sprint(h.Distribution())
			}
			out = append(out, v)
		}
		if len(s.Ops) == 0 {
			out = append(out, SecondView{T: s.T})
		}
	}
	return out
}
