package report

import (
	"math"
	"slices"

	"golang.org/x/perf/benchmath"
)

// How a change is judged: over runs, as benchstat judges benchmarks. A
// run's own samples (its seconds, its latencies, even its --repeat
// repetitions) cannot see what changes from one run to the next (the
// machine's load, the store's caches, where the data landed): tested
// within runs, six identical 10 s runs against a server of known
// behaviour made 7 of 15 pairs "significant", and runs of --repeat 5 made
// 4 of 15. So each run is one sample of each metric (its repetitions
// merged), and a change is significant when a Mann-Whitney U test of the
// two sides' runs, with exact p-values (golang.org/x/perf/benchmath), gives
// p < alpha and the change is at least minChangePct. With too few runs for
// the test to reach alpha whatever the values, the change is not tested
// and the comparison says how many runs it needs.

// The rules; docs/reports-and-compare.md, "Comparing runs", gives them with
// their measured error rates.
const (
	alpha = 0.05
	// A change smaller than this is noise whatever a test says: a
	// benchmark cannot promise better, and many runs make any difference
	// "significant".
	minChangePct = 2.0
)

// RunsNeeded is the fewest runs a side for which the U test can show a
// change at alpha (4: 2/C(8,4) = 0.029).
func RunsNeeded() int {
	for n := 1; ; n++ {
		if minUTestP(n, n) < alpha {
			return n
		}
	}
}

// runTest is a change tested over the runs of both sides: base's and the
// other's values, one a run.
func runTest(base, other []float64) (c Change) {
	c.Base, c.Value = median(base), median(other)
	c.Pct = pct(c.Base, c.Value)
	c.N1, c.N2 = len(base), len(other)
	c.Lo, c.Hi = math.NaN(), math.NaN()
	if minUTestP(len(base), len(other)) >= alpha {
		c.P, c.Sig = 1, Untested
		return c
	}
	th := benchmath.DefaultThresholds
	th.CompareAlpha = alpha
	cmp := benchmath.AssumeNothing.Compare(benchmath.NewSample(slices.Clone(base), &th), benchmath.NewSample(slices.Clone(other), &th))
	c.P, c.Sig = cmp.P, NotSignificant
	c.Lo, c.Hi = changeInterval(base, other, c.Base)
	if c.P < alpha && math.Abs(c.Pct) >= minChangePct {
		c.Sig = Significant
	}
	return c
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

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// changeInterval is the confidence interval of the change in percent:
// of the ratio other/base (the shift of the logarithms) when every value
// is positive, as rates and latencies are, so that it never passes
// -100%; else of the shift, in percent of the base's median. NaN when
// there is none.
func changeInterval(base, other []float64, baseMedian float64) (lo, hi float64) {
	positive := func(xs []float64) bool {
		return !slices.ContainsFunc(xs, func(x float64) bool { return !(x > 0) })
	}
	if positive(base) && positive(other) {
		logs := func(xs []float64) []float64 {
			out := make([]float64, len(xs))
			for i, x := range xs {
				out[i] = math.Log(x)
			}
			return out
		}
		if l, h, ok := shiftInterval(logs(base), logs(other)); ok {
			return math.Expm1(l) * 100, math.Expm1(h) * 100
		}
		return math.NaN(), math.NaN()
	}
	if l, h, ok := shiftInterval(base, other); ok && baseMedian != 0 {
		return l / math.Abs(baseMedian) * 100, h / math.Abs(baseMedian) * 100
	}
	return math.NaN(), math.NaN()
}

// shiftInterval is the distribution-free confidence interval, of at
// least 1-alpha, of the shift from base to other that the U test goes
// with (Hodges-Lehmann, Bauer 1972): the pairwise differences other[j] -
// base[i] in order, from the one above the U test's lower critical count
// to its mirror. ok is false when the samples are too few for one.
func shiftInterval(base, other []float64) (lo, hi float64, ok bool) {
	n1, n2 := len(base), len(other)
	k := uCritical(n1, n2, alpha/2)
	if k < 0 {
		return 0, 0, false
	}
	d := make([]float64, 0, n1*n2)
	for _, b := range base {
		for _, o := range other {
			d = append(d, o-b)
		}
	}
	slices.Sort(d)
	return d[k], d[len(d)-1-k], true
}

// uCritical is the largest u with P(U <= u) <= tail for U of samples of
// n1 and n2 under the null (no ties), or -1 when even P(U = 0) is above
// it. Exact for up to 10,000 pairs, the normal approximation beyond.
func uCritical(n1, n2 int, tail float64) int {
	if n1 == 0 || n2 == 0 {
		return -1
	}
	if n1*n2 > 10_000 {
		mu, sd := float64(n1*n2)/2, math.Sqrt(float64(n1*n2*(n1+n2+1))/12)
		z := math.Sqrt2 * math.Erfinv(2*tail-1) // the normal quantile of tail
		return int(math.Floor(mu + z*sd - 0.5))
	}
	counts := uCounts(n1, n2)
	var total, cum float64
	for _, c := range counts {
		total += c
	}
	u := -1
	for i, c := range counts {
		if cum += c; cum/total > tail {
			break
		}
		u = i
	}
	return u
}

// uCounts are the numbers of orderings of n1 and n2 distinct values with
// each U = 0 .. n1*n2: the coefficients of the Gaussian binomial
// [n1+n2 choose n1]_q, a product of (1-q^(n2+i))/(1-q^i) for i = 1..n1,
// worked as power series cut at its degree (exact: it is a polynomial).
func uCounts(n1, n2 int) []float64 {
	p := make([]float64, n1*n2+1)
	p[0] = 1
	for i := 1; i <= n1; i++ {
		for d := len(p) - 1 - (n2 + i); d >= 0; d-- { // times 1 - q^(n2+i)
			p[d+n2+i] -= p[d]
		}
		for d := i; d < len(p); d++ { // over 1 - q^i
			p[d] += p[d-i]
		}
	}
	return p
}
