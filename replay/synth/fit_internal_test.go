package synth

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/objbench/objbench/metrics"
)

// draws counts m requests over n keys with popularity rank^-s.
func draws(n, m int, s float64, seed uint64) []point {
	rng := rand.New(rand.NewPCG(seed, 1))
	cum := make([]float64, n)
	var tot float64
	for k := range n {
		tot += math.Pow(float64(k+1), -s)
		cum[k] = tot
	}
	counts := make([]int64, n)
	for range m {
		u := rng.Float64() * tot
		lo, hi := 0, n-1
		for lo < hi {
			if mid := (lo + hi) / 2; cum[mid] < u {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		counts[lo]++
	}
	pts := make([]point, n)
	for i, c := range counts {
		pts[i] = point{c, 1}
	}
	return pts
}

func TestFitPopularity(t *testing.T) {
	for _, c := range []struct {
		n, m    int
		s       float64
		uniform bool
	}{
		{5000, 100000, 1.2, false}, {10000, 200000, 0.8, false}, {10000, 200000, 1.0, false},
		{100000, 300000, 0.9, false}, {1000, 50000, 2.0, false},
		{2000, 100000, 0, true}, {10000, 10000, 0, true},
	} {
		p := fitPopularity(draws(c.n, c.m, c.s, 1))
		if p.Uniform != c.uniform {
			t.Errorf("n=%d s=%.1f: uniform %v, want %v (%+v)", c.n, c.s, p.Uniform, c.uniform, p)
		}
		if !c.uniform && math.Abs(p.Exponent-c.s) > 0.05 {
			t.Errorf("n=%d s=%.1f m=%d: fitted %.3f, want ± 0.05", c.n, c.s, c.m, p.Exponent)
		}
		if !c.uniform && p.KSZipf > 0.05 {
			t.Errorf("n=%d s=%.1f: KS distance %.3f of its own law", c.n, c.s, p.KSZipf)
		}
	}
}

func TestHarmonicTailMatchesTheSum(t *testing.T) {
	for _, s := range []float64{0.5, 1, 1.3} {
		var exact float64
		for k := 1; k <= 50000; k++ {
			exact += math.Pow(float64(k), -s)
		}
		if got := harmonic(50000, s); math.Abs(got-exact)/exact > 1e-6 {
			t.Errorf("H(50000, %v) = %v, want %v", s, got, exact)
		}
	}
}

func TestPercentagesSumTo100(t *testing.T) {
	for _, w := range [][metrics.NumOps]float64{
		{1, 1, 1}, {1000, 1, 0.001, 0, 5}, {33, 33, 34}, {0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 99},
	} {
		p := percentages(w)
		sum := 0
		for op, v := range p {
			sum += v
			if (w[op] > 0) != (v > 0) {
				t.Errorf("%v: op %d has weight %v but %d%%", w, op, w[op], v)
			}
		}
		if sum != 100 {
			t.Errorf("%v gives %v, summing to %d", w, p, sum)
		}
	}
}

func TestSizeHistogramKeepsExactSizes(t *testing.T) {
	var h sizeHist
	for range 10 {
		h.add(4096)
	}
	if s := h.selector(); s.String() != "c(4096)" {
		t.Errorf("one size: %s", s)
	}
	h.add(0)
	h.add(5000)
	if s := h.selector().String(); s != "h(0|0|1,4096|5000|11)" {
		t.Errorf("sizes 0, 4096x10, 5000: %s", s)
	}
}

func TestKeyTableStaysBounded(t *testing.T) {
	tab := newKeyTable(1000)
	for i := range 300000 {
		if s := tab.get(hashKey("b", "key-"+strconv.Itoa(i))); s != nil {
			s.reads++
		}
		if len(tab.m) > 1000 {
			t.Fatalf("%d keys tracked after %d distinct, bound 1000", len(tab.m), i+1)
		}
	}
	mult := tab.mult()
	var est int64
	for h, s := range tab.m {
		est += mult(h, s)
	}
	if est < 240000 || est > 360000 {
		t.Errorf("estimated %d distinct keys (1 in %d sampled), want 300000 ± 20%%", est, tab.scale())
	}
}
