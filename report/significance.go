package report

import (
	"math"

	"golang.org/x/perf/benchmath"
)

// How a rate change is judged. A run's per-second rates are not
// independent samples: a slow second is followed by slow seconds (a
// compaction, a cache filling, a neighbour's burst), so a test that takes
// each second as a sample finds "significant" changes between two runs of
// the same thing far more often than its p-value says (report's
// TestSignificanceOnAutocorrelatedRates measures it). Two ways are
// honest:
//
//   - Repetitions (--repeat N): each repetition's window rate is one
//     sample, the repetitions being separate runs of the step. Compared by
//     benchstat's rule: a Mann-Whitney U test with exact p-values
//     (golang.org/x/perf/benchmath), which needs 4 samples a side to reach
//     p<0.05 and 5 to reach it comfortably.
//   - Batch means, otherwise: the per-second series is cut into batches
//     long enough that their means are nearly independent (batchSeconds,
//     from the series' lag-1 autocorrelation), and the batch means are the
//     samples of the same U test. A run too short for its autocorrelation
//     is not tested ("?"), rather than tested wrongly.
const (
	// batchFactor sets the batch length from the lag-1 autocorrelation
	// rho: batchFactor*rho/(1-rho) seconds, so that the correlation of
	// neighbouring batch means of an AR(1) series stays near 0.1.
	batchFactor = 10
	// maxRho caps the estimate: a series more correlated than this is a
	// trend, and its batches would be longer than any run.
	maxRho = 0.98
)

// rateSamples are one run's samples of one rate: the window rate of each
// repetition and the per-second rates of each repetition's window.
type rateSamples struct {
	reps    []float64
	seconds [][]float64
}

// rateTest is how a rate change was tested.
type rateTest struct {
	method string // "repetitions" or "batch means"
	batch  int    // batch means: the batch length in seconds
	n1, n2 int
}

// testRates compares two runs' rate samples; p is 1 and sig Untested when
// the samples cannot show a change.
func testRates(bs, vs rateSamples) (p float64, sig Significance, how rateTest) {
	a, b := bs.reps, vs.reps
	how.method = "repetitions"
	if len(a) < 2 || len(b) < 2 {
		rho := math.Max(lag1(bs.seconds), lag1(vs.seconds))
		l := batchSeconds(rho)
		a, b = batchMeans(bs.seconds, l), batchMeans(vs.seconds, l)
		how.method, how.batch = "batch means", l
	}
	how.n1, how.n2 = len(a), len(b)
	if minUTestP(len(a), len(b)) >= alpha {
		return 1, Untested, how
	}
	th := benchmath.DefaultThresholds
	th.CompareAlpha = alpha
	cmp := benchmath.AssumeNothing.Compare(benchmath.NewSample(append([]float64(nil), a...), &th),
		benchmath.NewSample(append([]float64(nil), b...), &th))
	return cmp.P, NotSignificant, how
}

// minUTestP is the smallest two-sided p-value a U test of samples of n1
// and n2 can give: 2 / C(n1+n2, n1).
func minUTestP(n1, n2 int) float64 {
	if n1 == 0 || n2 == 0 {
		return 1
	}
	c := 1.0
	for i := 1; i <= n1; i++ {
		c = c * float64(n2+i) / float64(i)
	}
	return math.Min(1, 2/c)
}

// lag1 estimates the lag-1 autocorrelation of the series (pooled, each
// about its own mean), corrected for the estimator's bias towards 0 in
// short series, (1+4rho)/n; 0 without enough data.
func lag1(series [][]float64) float64 {
	var num, den float64
	n := 0
	for _, s := range series {
		if len(s) < 3 {
			continue
		}
		var mean float64
		for _, x := range s {
			mean += x
		}
		mean /= float64(len(s))
		for i, x := range s {
			den += (x - mean) * (x - mean)
			if i > 0 {
				num += (x - mean) * (s[i-1] - mean)
			}
		}
		n += len(s)
	}
	if den == 0 || n == 0 {
		return 0
	}
	r := num / den
	return math.Min(maxRho, r+(1+4*math.Max(r, 0))/float64(n))
}

// batchSeconds is the batch length for a series of lag-1
// autocorrelation rho.
func batchSeconds(rho float64) int {
	if rho <= 0 {
		return 1
	}
	return max(1, int(math.Ceil(batchFactor*rho/(1-rho))))
}

// batchMeans cuts each series into whole batches of l values and returns
// their means (a remainder shorter than l is left out).
func batchMeans(series [][]float64, l int) []float64 {
	var out []float64
	for _, s := range series {
		for i := 0; i+l <= len(s); i += l {
			var sum float64
			for _, x := range s[i : i+l] {
				sum += x
			}
			out = append(out, sum/float64(l))
		}
	}
	return out
}
