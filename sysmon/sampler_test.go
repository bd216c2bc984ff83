package sysmon

import (
	"context"
	"math"
	"testing"
	"time"
)

func TestSamplerOnThisMachine(t *testing.T) {
	got := make(chan Sample, 100)
	s, err := NewSampler(Config{Interval: 50 * time.Millisecond, Process: true, OnSample: func(x Sample) { got <- x }})
	if err != nil {
		t.Fatal(err)
	}
	s.Start(context.Background(), time.Now())
	waitSamples(t, got, 3)
	s.Align(time.Now())
	waitSamples(t, got, 2)
	tl, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Samples) < 5 {
		t.Fatalf("%d samples, want at least 5", len(tl.Samples))
	}
	for i, x := range tl.Samples {
		if x.Dur <= 0 || x.Proc == nil || x.Proc.Threads == 0 || x.Proc.MaxProcs == 0 {
			t.Errorf("sample %d: dur %v, process %+v", i, x.Dur, x.Proc)
		}
		if sum := x.CPU.Busy() + x.CPU.Idle + x.CPU.IOWait + x.CPU.Steal; sum != 0 && math.Abs(sum-100) > 1e-6 {
			t.Errorf("sample %d: CPU states add up to %v%%", i, sum)
		}
		if i > 0 && x.Start.Sub(tl.Samples[i-1].End()).Abs() > time.Millisecond {
			t.Errorf("sample %d starts at %v, %v after the previous ended: intervals must be contiguous",
				i, x.Start, x.Start.Sub(tl.Samples[i-1].End()))
		}
	}
}

// waitSamples waits for n samples, failing after a deadline.
func waitSamples(t *testing.T, ch <-chan Sample, n int) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for range n {
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("no sample within 10 s")
		}
	}
}

func TestTicksSkipWhatWasMissed(t *testing.T) {
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		now  time.Duration
		want time.Duration
	}{
		{"before the first tick", 300 * time.Millisecond, time.Second},
		{"exactly on a tick", time.Second, 2 * time.Second},
		{"three ticks missed", 3500 * time.Millisecond, 4 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := after(base, time.Second, base.Add(c.now)); !got.Equal(base.Add(c.want)) {
				t.Errorf("next tick at +%v, want +%v", got.Sub(base), c.want)
			}
		})
	}
}

func TestQuantileOfHistogramDelta(t *testing.T) {
	buckets := []float64{0, 1e-6, 1e-3, 4e-3, math.Inf(1)}
	for _, c := range []struct {
		name      string
		prev, cur []uint64
		q, want   float64
	}{
		{"no observations", []uint64{5, 5, 5, 5}, []uint64{5, 5, 5, 5}, 0.99, 0},
		{"all fast", []uint64{0, 0, 0, 0}, []uint64{100, 0, 0, 0}, 0.99, 1e-6},
		{"one percent slow", []uint64{0, 0, 0, 0}, []uint64{0, 98, 2, 0}, 0.99, 4e-3},
		{"only new slow ones count", []uint64{0, 1000, 0, 0}, []uint64{0, 1000, 0, 10}, 0.99, 4e-3},
		{"first process reading", nil, []uint64{0, 100, 0, 0}, 0.5, 1e-3},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := quantileDelta(c.prev, c.cur, buckets, c.q); got != c.want {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

func TestAssignGivesStepAndSecond(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	steps := []Span{{at(1000), at(3500)}, {at(4000), at(6000)}}
	for _, c := range []struct {
		start    int
		step     int
		second   int64
		describe string
	}{
		{0, -1, 0, "before the first step"},
		{1002, 0, 0, "first second, cut a moment after the step began"},
		{1995, 0, 1, "a tick that fired early"},
		{3000, 0, 2, "last, partial second"},
		{3600, -1, 0, "between steps"},
		{3995, 1, 0, "just before the step's start (within the cut slack)"},
		{5001, 1, 1, "second 1 of step 1"},
	} {
		t.Run(c.describe, func(t *testing.T) {
			s := []Sample{{Start: at(c.start), Dur: 1}}
			Assign(s, steps)
			if s[0].Step != c.step || s[0].T != c.second {
				t.Errorf("step %d second %d, want step %d second %d", s[0].Step, s[0].T, c.step, c.second)
			}
		})
	}
}

// BenchmarkRead is the cost of one snapshot of this machine and process,
// paid once per interval.
func BenchmarkRead(b *testing.B) {
	r, err := newReader(Config{Process: true})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		r.read(time.Now())
	}
}
