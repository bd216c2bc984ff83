package saturate_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/saturate"
)

// model is a store of known capacity: below it, p99 is 5 ms; above it, the
// slots beyond capacity are dropped and p99 is 80 ms.
func model(capacity float64) func(context.Context, float64) (saturate.Point, error) {
	return func(_ context.Context, rate float64) (saturate.Point, error) {
		p := saturate.Point{Achieved: min(rate, capacity), Slots: int64(rate * 10), P99: 5 * time.Millisecond}
		if rate > capacity {
			p.Dropped = int64((rate - capacity) * 10)
			p.P99 = 80 * time.Millisecond
		}
		return p, nil
	}
}

func TestSearchStopsAtEachLimit(t *testing.T) {
	for _, c := range []struct {
		name    string
		cfg     saturate.Config
		knee    float64
		stopped string
		nPoints int
		noKnee  bool
	}{
		{"p99", saturate.Config{Start: 100, Max: 1e6, Factor: 2, Objective: saturate.Objective{P99: 50 * time.Millisecond}, Measure: model(1000)},
			800, "p99", 5, false},
		{"errors", saturate.Config{Start: 100, Max: 1e6, Factor: 2, Measure: model(1000)}, 800, "error+dropped", 5, false},
		{"growth", saturate.Config{Start: 100, Max: 1e6, Factor: 2, Objective: saturate.Objective{MaxErrorRatio: 1}, Measure: model(1000)},
			800, "stopped growing", 5, false},
		{"max", saturate.Config{Start: 100, Max: 300, Factor: 2, Measure: model(1000)}, 300, "maximum", 3, true},
		{"first fails", saturate.Config{Start: 2000, Max: 1e6, Factor: 2, Measure: model(1000)}, 0, "error+dropped", 1, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := saturate.Search(context.Background(), c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Points) != c.nPoints || !strings.Contains(res.StoppedBy, c.stopped) {
				t.Errorf("%d points, stopped by %q; want %d, %q", len(res.Points), res.StoppedBy, c.nPoints, c.stopped)
			}
			switch {
			case c.noKnee && res.Knee != nil:
				t.Errorf("knee %+v, want none", res.Knee)
			case !c.noKnee && (res.Knee == nil || res.Knee.Rate != c.knee):
				t.Errorf("knee %+v, want rate %v", res.Knee, c.knee)
			case c.knee > 0 && (res.Best == nil || res.Best.Rate != c.knee):
				t.Errorf("best %+v, want rate %v", res.Best, c.knee)
			}
		})
	}
}

func TestSearchHonoursDeadline(t *testing.T) {
	res, err := saturate.Search(context.Background(), saturate.Config{Start: 100, Max: 1e6, Measure: model(1e9),
		Deadline: time.Now().Add(-time.Second)})
	if err != nil || len(res.Points) != 0 || res.StoppedBy != "time limit" || res.Knee != nil {
		t.Errorf("%+v, %v: want no steps after the deadline, and no knee", res, err)
	}
}

// Whole steps (concurrency) round up and always grow: 1, 2, 3, 5, 8, 12.
func TestWholeSteps(t *testing.T) {
	var got []float64
	_, err := saturate.Search(context.Background(), saturate.Config{Start: 1, Max: 12, Factor: 1.5, Whole: true,
		Objective: saturate.Objective{MaxErrorRatio: 1, MinGrowth: 1e-9},
		Measure: func(_ context.Context, v float64) (saturate.Point, error) {
			got = append(got, v)
			return saturate.Point{Achieved: v * 100, Slots: 1}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1, 2, 3, 5, 8, 12}
	if len(got) != len(want) {
		t.Fatalf("steps %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("steps %v, want %v", got, want)
		}
	}
}
