package report

import (
	"math"
	"math/rand/v2"
	"testing"
)

// uCounts is the null distribution of U: checked against every ordering
// of small samples, counted one by one.
func TestUCountsAreUsDistribution(t *testing.T) {
	for n1 := 1; n1 <= 6; n1++ {
		for n2 := 1; n2 <= 6; n2++ {
			want := make([]float64, n1*n2+1)
			// Each subset of n1 of the n1+n2 ranks is one ordering; U counts
			// the pairs (a from the subset, b not) with a above b.
			for mask := 0; mask < 1<<(n1+n2); mask++ {
				if popcount(mask) != n1 {
					continue
				}
				u, below := 0, 0
				for r := 0; r < n1+n2; r++ {
					if mask&(1<<r) != 0 {
						u += below
					} else {
						below++
					}
				}
				want[u]++
			}
			got := uCounts(n1, n2)
			for u := range want {
				if got[u] != want[u] {
					t.Fatalf("n1=%d n2=%d: counts %v, want %v", n1, n2, got, want)
				}
			}
		}
	}
	if RunsNeeded() != 4 {
		t.Errorf("RunsNeeded = %d, want 4 (2/C(8,4) = 0.029)", RunsNeeded())
	}
}

func popcount(x int) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// The shift's interval covers the true shift in at least 95% of draws.
func TestShiftIntervalCovers(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{4, 5, 8} {
		covered, trials := 0, 2000
		for range trials {
			a, b := make([]float64, n), make([]float64, n)
			for i := range a {
				a[i], b[i] = rng.NormFloat64(), 3+rng.NormFloat64()
			}
			if lo, hi, ok := shiftInterval(a, b); ok && lo <= 3 && 3 <= hi {
				covered++
			}
		}
		if f := float64(covered) / float64(trials); f < 0.94 {
			t.Errorf("%d a side: the interval covers the shift in %.1f%% of draws, want >= 95%%", n, 100*f)
		}
	}
	if _, _, ok := shiftInterval([]float64{1, 2, 3}, []float64{4, 5, 6}); ok {
		t.Error("3 a side: an interval, where no U test can reach its level")
	}
}

// runsOf draws n runs' rates: each run's mean is the side's mean moved by
// a run effect (the machine, the store's state: what changes between
// runs, sd runSD), and its repetitions or seconds are not drawn at all:
// a run is one sample.
func runsOf(rng *rand.Rand, n int, mean, runSD float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = mean * (1 + runSD*rng.NormFloat64())
	}
	return out
}

// Over runs, identical sides are called different in at most 5% of
// comparisons, and a 10% change is found in at least 90% of them with 5
// runs a side and runs that vary by 3% from one to the next; one run a
// side is never tested.
func TestSignificanceOverRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const trials = 2000
	var fp, found int
	for range trials {
		a, b := runsOf(rng, 5, 1000, 0.03), runsOf(rng, 5, 1000, 0.03)
		if runTest(a, b).Sig == Significant {
			fp++
		}
		if runTest(a, runsOf(rng, 5, 900, 0.03)).Sig == Significant {
			found++
		}
	}
	if f := float64(fp) / trials; f > 0.05 {
		t.Errorf("identical sides called different in %.1f%% of comparisons, want <= 5%%", 100*f)
	}
	if f := float64(found) / trials; f < 0.90 {
		t.Errorf("a 10%% change found in %.1f%% of comparisons, want >= 90%%", 100*f)
	}
	c := runTest([]float64{1000}, []float64{2000})
	if c.Sig != Untested || c.N1 != 1 || !math.IsNaN(c.Lo) {
		t.Errorf("one run a side: %+v, want untested", c)
	}
	c = runTest([]float64{100, 101, 99, 100.5, 99.5}, []float64{200, 201, 199, 200.5, 199.5})
	if c.Sig != Significant || c.Lo < 95 || c.Hi > 105 || c.Pct != 100 {
		t.Errorf("5 runs a side, 100 against 200: %+v; want significant, +100%% within a tight interval", c)
	}
}
