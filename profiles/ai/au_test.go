package ai

import (
	"math"
	"testing"
	"time"

	"github.com/objbench/objbench/result"
)

// AU is DLIO's formula (utils/statscounter.py, compute_metrics_train):
// the computation of the steps after the first over the epoch's wall
// time less the first step's load and computation; a barrier's wait
// counts in the wall time. The cases are worked by hand.
func TestAUIsDLIOsFormula(t *testing.T) {
	at := func(ms float64) time.Time { return time.Unix(0, 0).Add(time.Duration(ms * float64(time.Millisecond))) }
	type step struct{ wait, loaded, computed float64 } // ms
	cases := []struct {
		name  string
		steps []step
		end   float64
		// want: compute of steps 2.., wall = end - start - proc of step 1
		compute, wall float64
	}{
		// A store slower than the computation: every batch comes 60 ms
		// after the last computation ended; 40 ms of computation each.
		// Steps 2..4 compute 3 x 40 = 120 ms in 3 x 100 = 300 ms: 40%.
		{"slow store", []step{{0, 100, 140}, {140, 200, 240}, {240, 300, 340}, {340, 400, 440}}, 440, 120, 300},
		// Batches always ready: the accelerator never waits, AU 100%.
		{"fed", []step{{0, 30, 80}, {80, 80, 130}, {130, 130, 180}}, 180, 100, 100},
		// A barrier after step 2 holds 20 ms (another accelerator was
		// late): (50 + 50) / (200 - 80) = 83.3%.
		{"barrier", []step{{0, 30, 80}, {80, 80, 130}, {150, 150, 200}}, 200, 100, 120},
		// One step: nothing is left to measure.
		{"one step", []step{{0, 30, 80}}, 80, 0, 0},
	}
	for _, c := range cases {
		m := newAUMeter(at(0))
		for _, s := range c.steps {
			m.step(at(s.wait), at(s.loaded), at(s.computed))
		}
		l := m.finish(at(c.end))
		ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
		if ms(l.Compute) != c.compute || ms(l.Wall) != c.wall || l.Steps != len(c.steps) {
			t.Errorf("%s: compute %v, wall %v, %d steps; want %v ms, %v ms, %d", c.name, l.Compute, l.Wall, l.Steps, c.compute, c.wall, len(c.steps))
		}
		want := 0.0
		if c.wall > 0 {
			want = c.compute / c.wall
		}
		if math.Abs(l.AU()-want) > 1e-9 {
			t.Errorf("%s: AU %v, want %v", c.name, l.AU(), want)
		}
	}
}

// The step's AU is the mean of its accelerators' (DLIO averages the
// ranks' AU), its rate the sum of theirs over the steps that count.
func TestTrainingFiguresAddUpAccelerators(t *testing.T) {
	tr := result.Training{BatchSize: 4, AUTarget: 0.9, Loaders: []result.Loader{
		{Steps: 11, Samples: 44, Bytes: 44_000, Compute: 900 * time.Millisecond, Wall: time.Second},
		{Steps: 11, Samples: 44, Bytes: 88_000, Compute: 500 * time.Millisecond, Wall: 2 * time.Second},
	}}
	if au := tr.AU(); math.Abs(au-(0.9+0.25)/2) > 1e-12 {
		t.Errorf("AU %v, want the mean 0.575", au)
	}
	// 10 counted steps of 4 samples: 40 in 1 s and 40 in 2 s.
	if s := tr.SamplesPerSec(); math.Abs(s-60) > 1e-9 {
		t.Errorf("samples/s %v, want 60", s)
	}
	// 40 samples of 1000 bytes a second, and 20 of 2000.
	if b := tr.BytesPerSec(); math.Abs(b-80_000) > 1e-6 {
		t.Errorf("bytes/s %v, want 80000", b)
	}
	if tr.Met() {
		t.Error("an AU of 57.5% met a 90% target")
	}
}
