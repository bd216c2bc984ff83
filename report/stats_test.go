package report

import (
	"math"
	"testing"
)

func TestMannWhitneyKnownValues(t *testing.T) {
	for _, c := range []struct {
		name  string
		a, b  []float64
		u, p  float64
		delta float64
	}{
		// scipy.stats.mannwhitneyu docs (method="asymptotic"): U=17, p=0.11134688653314041.
		{"scipy docs", []float64{19, 22, 16, 29, 24}, []float64{20, 11, 17, 12}, 17, 0.11134688653314041, 1e-9},
		// Worked by hand: ranks 1,3,3,6 | 3,6,6,8; ties 3+3 -> var 10.857, z 1.3657.
		{"ties", []float64{1, 2, 2, 3}, []float64{2, 3, 3, 4}, 3, 0.17204, 1e-4},
		// Complete separation, 10 vs 10: U=0, z=(50-0.5)/13.2288 = 3.7418.
		{"separated", seq(1, 10), seq(11, 20), 0, 0.000182693, 1e-6},
		{"all tied", []float64{5, 5, 5}, []float64{5, 5}, 3, 1, 0},
		{"empty side", nil, []float64{1, 2}, 0, 1, 0},
	} {
		u, p := MannWhitney(c.a, c.b)
		if u != c.u || math.Abs(p-c.p) > c.delta {
			t.Errorf("%s: U=%v p=%.9f, want U=%v p=%.9f", c.name, u, p, c.u, c.p)
		}
		if _, p2 := MannWhitney(c.b, c.a); math.Abs(p2-p) > 1e-12 {
			t.Errorf("%s: p depends on the order of the samples: %v vs %v", c.name, p, p2)
		}
	}
}

func seq(from, to float64) []float64 {
	var s []float64
	for v := from; v <= to; v++ {
		s = append(s, v)
	}
	return s
}
