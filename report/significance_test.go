package report

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ar1 is n per-second rates of an AR(1) process about mean: each second
// keeps rho of the last one's deviation, and the deviations' spread is
// sd (a slow second is followed by slow seconds, as in real runs).
func ar1(rng *rand.Rand, n int, mean, sd, rho float64) []float64 {
	out := make([]float64, n)
	dev := rng.NormFloat64() * sd
	for i := range out {
		dev = rho*dev + rng.NormFloat64()*sd*math.Sqrt(1-rho*rho)
		out[i] = mean + dev
	}
	return out
}

func meanOf(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// judge is compare's verdict on a rate change between two runs' samples.
func judge(a, b rateSamples) Significance {
	return rateChange(meanOf(a.reps), meanOf(b.reps), a, b).Sig
}

// Pairs of runs of one autocorrelated process must be called different
// in about 5% of pairs at most (the test's alpha), and a 10% shift must
// still be found. The old rule, a U test over per-second samples, fails
// the first: it is measured here too.
func TestSignificanceOnAutocorrelatedRates(t *testing.T) {
	for _, rho := range []float64{0.5, 0.8} {
		checkSignificance(t, rho)
	}
}

// checkSignificance runs 5-minute runs of an AR(1) process of lag-1
// correlation rho, per-second spread 6%, once and as 5 repetitions.
func checkSignificance(t *testing.T, rho float64) {
	t.Helper()
	const pairs, secs, mean, sd = 400, 300, 1000.0, 60.0
	rng := rand.New(rand.NewPCG(11, uint64(rho*100)))
	run := func(shift float64, reps int) rateSamples {
		var s rateSamples
		for range reps {
			x := ar1(rng, secs/reps, mean*shift, sd, rho)
			s.seconds = append(s.seconds, x)
			s.reps = append(s.reps, meanOf(x))
		}
		return s
	}
	for _, c := range []struct {
		name string
		reps int
	}{{"one run, batch means", 1}, {"5 repetitions", 5}} {
		var falsePos, found, oldFalsePos int
		for range pairs {
			a, b := run(1, c.reps), run(1, c.reps)
			if judge(a, b) == Significant {
				falsePos++
			}
			if _, p := MannWhitney(a.seconds[0], b.seconds[0]); p < alpha {
				oldFalsePos++
			}
			if judge(run(1, c.reps), run(1.1, c.reps)) == Significant {
				found++
			}
		}
		fp, power, old := float64(falsePos)/pairs, float64(found)/pairs, float64(oldFalsePos)/pairs
		t.Logf("rho %.1f, %s: %.1f%% of same-process pairs called significant, %.1f%% of 10%% shifts found; a U test over seconds: %.1f%% false positives",
			rho, c.name, 100*fp, 100*power, 100*old)
		if fp > 0.07 {
			t.Errorf("rho %.1f, %s: %.1f%% false positives, want about 5%% at most", rho, c.name, 100*fp)
		}
		if power < 0.9 {
			t.Errorf("rho %.1f, %s: a 10%% shift found in %.1f%% of pairs, want 90%%", rho, c.name, 100*power)
		}
		if c.reps == 1 && old < 0.2 {
			t.Errorf("the per-second U test's false positives are %.1f%%: this process does not show its fault", 100*old)
		}
	}
}

// Too few samples for the U test to reach alpha: untested, not "same".
func TestSignificanceNeedsEnoughSamples(t *testing.T) {
	a := rateSamples{reps: []float64{100, 101, 99}, seconds: [][]float64{{100}, {101}, {99}}}
	b := rateSamples{reps: []float64{200, 201, 199}, seconds: [][]float64{{200}, {201}, {199}}}
	c := rateChange(100, 200, a, b)
	if c.Sig != Untested || c.Method != "repetitions" || c.N1 != 3 {
		t.Errorf("3 repetitions a side: %v by %q with %d samples, want untested: a U test of 3 and 3 cannot reach p<0.05", c.Sig, c.Method, c.N1)
	}
	a.reps, b.reps = append(a.reps, 100, 100.5), append(b.reps, 200, 200.5)
	if c := rateChange(100, 200, a, b); c.Sig != Significant {
		t.Errorf("5 repetitions a side, 100 against 200: %v (p=%.3g)", c.Sig, c.P)
	}
}
