package synth

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"github.com/objbench/objbench/workload"
)

// Popularity is how a key space's keys are picked, as fitted to a trace.
type Popularity struct {
	Keys int64 // distinct keys of the key space
	// Exponent is the zipf exponent s (rank k drawn with weight k^-s)
	// found by maximum likelihood; 0 when there was nothing to fit.
	Exponent float64
	// KSZipf and KSUniform are the Kolmogorov-Smirnov distances between
	// the trace's rank distribution and each model: the largest gap
	// between the shares of requests the top-k keys take.
	KSZipf, KSUniform float64
	// Dispersion is the variance over the mean of requests per key: about
	// 1 when every key is as likely (counts then differ by Poisson noise
	// only), far above with skew.
	Dispersion float64
	Uniform    bool // no skew beyond noise, or the zipf fit was poor
	Requests   int64
}

// maxUniformDispersion: counts no more dispersed than this are uniform
// popularity plus Poisson noise (whose dispersion is 1).
const maxUniformDispersion = 1.5

// maxKSZipf is the largest KS distance called a fit; above it popularity
// is taken as uniform.
const maxKSZipf = 0.15

// point is one key's requests, standing for mult keys of the trace (1
// for keys counted exactly, 2^level for keys of a hash sample).
type point struct{ count, mult int64 }

// fitPopularity fits the keys' requests to a zipf law over their ranks.
func fitPopularity(pts []point) Popularity {
	var p Popularity
	pts = slices.DeleteFunc(slices.Clone(pts), func(q point) bool { return q.count <= 0 || q.mult <= 0 })
	slices.SortFunc(pts, func(a, b point) int { return cmp.Compare(b.count, a.count) })
	var sumLog, sumSq, m float64 // Σ c ln r, Σ c², Σ c over the keys stood for
	var pos int64
	for _, q := range pts {
		c, k := float64(q.count), float64(q.mult)
		sumLog += c * k * math.Log(float64(pos)+(k+1)/2)
		sumSq += c * c * k
		m += c * k
		pos += q.mult
		p.Requests += q.count * q.mult
	}
	p.Keys = max(pos, 1)
	if len(pts) < 2 || p.Requests == 0 {
		p.Uniform = true
		return p
	}
	n := float64(p.Keys)
	mean := m / n
	p.Dispersion = (sumSq/n - mean*mean) / mean
	ll := func(s float64) float64 { return -s*sumLog - m*math.Log(harmonic(p.Keys, s)) }
	p.Exponent = maximize(ll, 0, 4)
	e := p.Exponent
	p.KSZipf = ksDistance(pts, m, func(lo, hi int64) float64 { return rankWeight(lo, hi, e) }, harmonic(p.Keys, e))
	p.KSUniform = ksDistance(pts, m, func(lo, hi int64) float64 { return float64(hi - lo + 1) }, n)
	p.Uniform = p.Dispersion < maxUniformDispersion || p.KSZipf >= p.KSUniform || p.KSZipf > maxKSZipf
	return p
}

// harmonic is Σ_{k=1..n} k^-s: the first terms exactly, the tail by
// rankWeight's integral, so a key space of billions costs microseconds.
func harmonic(n int64, s float64) float64 { return rankWeight(1, n, s) }

// ksDistance is the largest gap between the trace's cumulative share of
// requests over ranks and the model's, whose ranks lo..hi weigh w(lo, hi)
// of a total total.
func ksDistance(pts []point, m float64, w func(lo, hi int64) float64, total float64) float64 {
	var cum, model, d float64
	var pos int64
	for _, q := range pts {
		cum += float64(q.count) * float64(q.mult)
		model += w(pos+1, pos+q.mult)
		pos += q.mult
		d = max(d, math.Abs(cum/m-model/total))
	}
	return d
}

// maximize finds the maximum of a unimodal f on [lo, hi] by golden-section
// search, to within 1e-4.
func maximize(f func(float64) float64, lo, hi float64) float64 {
	g := (math.Sqrt(5) - 1) / 2
	a, b := lo, hi
	x1, x2 := b-g*(b-a), a+g*(b-a)
	f1, f2 := f(x1), f(x2)
	for b-a > 1e-4 {
		if f1 < f2 {
			a, x1, f1 = x1, x2, f2
			x2 = a + g*(b-a)
			f2 = f(x2)
		} else {
			b, x2, f2 = x2, x1, f1
			x1 = b - g*(b-a)
			f1 = f(x1)
		}
	}
	return (a + b) / 2
}

// Selector is the index selector that draws keys 1..Keys with this
// popularity: u() when uniform, zipf() for an exponent above 1 (what
// zipf() takes), else a histogram of power-of-two rank bins weighted by
// the fitted power law.
func (p Popularity) Selector() workload.Selector {
	n := max(p.Keys, 1)
	switch {
	case n == 1:
		return workload.Const(1)
	case p.Uniform:
		return workload.Selector{Kind: workload.SelUniform, Min: 1, Max: n}
	case p.Exponent > 1:
		e := math.Max(math.Round(p.Exponent*1000)/1000, 1.001)
		return workload.Selector{Kind: workload.SelZipf, Min: 1, Max: n, Exp: e}
	}
	var bins []workload.Bin
	var total float64
	var weights []float64
	for lo := int64(1); lo <= n; lo *= 2 {
		hi := min(2*lo-1, n)
		w := rankWeight(lo, hi, p.Exponent)
		bins = append(bins, workload.Bin{Lo: lo, Hi: hi})
		weights = append(weights, w)
		total += w
	}
	for i := range bins {
		bins[i].Weight = max(int64(math.Round(1e6*weights[i]/total)), 1)
	}
	return workload.Selector{Kind: workload.SelHistogram, Min: 1, Max: n, Bins: bins}
}

// rankWeight is Σ_{k=lo..hi} k^-s: exactly for ranks up to 10,000 (and
// the first thousand of any run), by the midpoint integral beyond, whose
// error there is below a millionth.
func rankWeight(lo, hi int64, s float64) float64 {
	var w float64
	k := lo
	for end := min(hi, max(lo+999, 10000)); k <= end; k++ {
		w += math.Pow(float64(k), -s)
	}
	if k > hi {
		return w
	}
	a, b := float64(k)-0.5, float64(hi)+0.5
	if math.Abs(s-1) < 1e-9 {
		return w + math.Log(b/a)
	}
	return w + (math.Pow(b, 1-s)-math.Pow(a, 1-s))/(1-s)
}

// describe says in words what was fitted, for the workload file.
func (p Popularity) describe() string {
	fit := "zipf exponent " + strconv.FormatFloat(p.Exponent, 'f', 3, 64) + " by maximum likelihood"
	ks := "KS distance " + strconv.FormatFloat(p.KSZipf, 'f', 3, 64) + " (uniform: " + strconv.FormatFloat(p.KSUniform, 'f', 3, 64) + ")"
	disp := "requests per key dispersion " + strconv.FormatFloat(p.Dispersion, 'f', 2, 64)
	switch {
	case p.Requests == 0:
		return "no requests to fit"
	case p.Uniform && p.Dispersion < maxUniformDispersion:
		return "uniform: " + disp + " (1 is uniform with Poisson noise); " + fit + ", " + ks
	case p.Uniform:
		return "uniform, the zipf fit being poor: " + fit + ", " + ks + "; " + disp
	}
	quality := "good"
	if p.KSZipf > 0.05 {
		quality = "fair"
	}
	return fit + ", " + ks + ": a " + quality + " fit; " + disp
}
