package workload

import (
	"math"
	"math/rand/v2"

	"github.com/objbench/objbench/units"
)

// Sequential reports whether the selector counts through its values (r,
// s) rather than drawing them at random.
func (s Selector) Sequential() bool { return s.Kind == SelRange || s.Kind == SelSequential }

// Sampler returns a function that draws values of s. Random kinds draw
// from rng; sequential kinds take their position from next, a counter the
// caller shares among the workers of one stream so that together they walk
// the range in order (COSBench's s() and r()). The function is for one
// goroutine, since rng is.
func (s Selector) Sampler(rng *rand.Rand, next func() uint64) func() int64 {
	if s.Unit > 1 {
		return s.unitSampler(rng, next)
	}
	switch s.Kind {
	case SelConst:
		v := s.Min
		return func() int64 { return v }
	case SelRange, SelSequential:
		return func() int64 { return s.Nth(next()) }
	case SelZipf:
		z := rand.NewZipf(rng, s.Exp, 1, uint64(s.Max-s.Min))
		return func() int64 { return s.Min + int64(z.Uint64()) }
	case SelHistogram:
		return s.histogramSampler(rng)
	case SelLog2:
		lo, hi := math.Log2(float64(s.Min)), math.Log2(float64(s.Max))
		return func() int64 {
			v := int64(math.Round(math.Exp2(lo + rng.Float64()*(hi-lo))))
			return min(max(v, s.Min), s.Max)
		}
	}
	return func() int64 { return s.Min + rng.Int64N(s.Max-s.Min+1) }
}

func (s Selector) histogramSampler(rng *rand.Rand) func() int64 {
	cum := make([]int64, len(s.Bins))
	var total int64
	for i, b := range s.Bins {
		total += b.Weight
		cum[i] = total
	}
	return func() int64 {
		r := rng.Int64N(total)
		for i, c := range cum {
			if r < c {
				b := s.Bins[i]
				return b.Lo + rng.Int64N(b.Hi-b.Lo+1)
			}
		}
		return s.Max
	}
}

// Nth is the i-th value of a sequential walk through the selector's values,
// wrapping around at the end.
func (s Selector) Nth(i uint64) int64 {
	n := s.Count()
	if n <= 0 {
		return s.Min
	}
	return s.At(int64(i % uint64(n)))
}

// Ranges are the selector's possible values as sorted, disjoint closed
// ranges: one for most kinds, the merged bins of a histogram.
func (s Selector) Ranges() [][2]int64 {
	if s.Kind != SelHistogram {
		return [][2]int64{{s.Min, s.Max}}
	}
	var out [][2]int64
	for _, b := range s.Bins { // sorted by Lo
		if n := len(out); n > 0 && b.Lo <= out[n-1][1]+1 {
			out[n-1][1] = max(out[n-1][1], b.Hi)
			continue
		}
		out = append(out, [2]int64{b.Lo, b.Hi})
	}
	return out
}

// Count is how many distinct values the selector can give (saturating at
// MaxInt64); prepare and cleanup stages visit each once.
func (s Selector) Count() int64 {
	var n int64
	for _, r := range s.Ranges() {
		w := r[1] - r[0] + 1
		if w <= 0 || n > math.MaxInt64-w {
			return math.MaxInt64
		}
		n += w
	}
	return n
}

// At is the i-th smallest possible value (0 <= i < Count()).
func (s Selector) At(i int64) int64 {
	for _, r := range s.Ranges() {
		w := r[1] - r[0] + 1
		if i < w {
			return r[0] + i
		}
		i -= w
	}
	return s.Max
}

// Contains reports whether every value of o is a possible value of s.
func (s Selector) Contains(o Selector) bool {
	for _, r := range o.Ranges() {
		if !coveredBy(r, s.Ranges()) {
			return false
		}
	}
	return true
}

func coveredBy(r [2]int64, by [][2]int64) bool {
	for _, b := range by {
		if r[0] >= b[0] && r[1] <= b[1] {
			return true
		}
	}
	return false
}

// Mean is the expected value of a draw.
func (s Selector) Mean() float64 {
	lo, hi := float64(s.Min), float64(s.Max)
	switch s.Kind {
	case SelConst:
		return lo
	case SelHistogram:
		var sum, w float64
		for _, b := range s.Bins {
			sum += float64(b.Weight) * (float64(b.Lo) + float64(b.Hi)) / 2
			w += float64(b.Weight)
		}
		return sum / w
	case SelLog2:
		if hi == lo {
			return lo
		}
		return (hi - lo) / math.Log(hi/lo)
	case SelZipf:
		return s.zipfMean()
	}
	return (lo + hi) / 2
}

// zipfMean sums the first ranks exactly and the long tail as an integral,
// so that even zipf(1,1e12) costs microseconds.
func (s Selector) zipfMean() float64 {
	const exact = 10000
	n := float64(s.Max-s.Min) + 1
	var sum, norm float64
	for k := 1.0; k <= min(n, exact); k++ {
		p := math.Pow(k, -s.Exp) // rank k has weight k^-e (rand.Zipf, v=1)
		sum += p * (float64(s.Min) + k - 1)
		norm += p
	}
	if n > exact {
		a, b := exact+0.5, n+0.5
		tailNorm := (math.Pow(b, 1-s.Exp) - math.Pow(a, 1-s.Exp)) / (1 - s.Exp)
		var tailX float64 // the integral of x^(1-e)
		if s.Exp == 2 {
			tailX = math.Log(b / a)
		} else {
			tailX = (math.Pow(b, 2-s.Exp) - math.Pow(a, 2-s.Exp)) / (2 - s.Exp)
		}
		sum += (float64(s.Min)-1)*tailNorm + tailX
		norm += tailNorm
	}
	return sum / norm
}

// Scale maps every value v to ceil(v*f), so a scaled-down workload keeps
// its shape: a range that contained another still does, and c(0) stays 0.
func (s Selector) Scale(f float64) Selector {
	if f <= 0 || f == 1 {
		return s
	}
	out := s
	out.Min, out.Max = scaleInt(s.Min, f), scaleInt(s.Max, f)
	if s.Bins != nil {
		out.Bins = make([]Bin, len(s.Bins))
		for i, b := range s.Bins {
			out.Bins[i] = Bin{Lo: scaleInt(b.Lo, f), Hi: scaleInt(b.Hi, f), Weight: b.Weight}
		}
	}
	if out.Kind == SelLog2 && out.Min < 1 {
		out.Min = 1
	}
	return out
}

func scaleInt(v int64, f float64) int64 {
	if v <= 0 {
		return v
	}
	x := math.Ceil(float64(v) * f)
	if x >= math.MaxInt64/2 {
		return math.MaxInt64 / 2
	}
	return max(int64(x), 1)
}

// Shift adds d to every value (COSBench container numbers to positions).
func (s Selector) Shift(d int64) Selector {
	out := s
	out.Min, out.Max = s.Min+d, s.Max+d
	if s.Bins != nil {
		out.Bins = make([]Bin, len(s.Bins))
		for i, b := range s.Bins {
			out.Bins[i] = Bin{Lo: b.Lo + d, Hi: b.Hi + d, Weight: b.Weight}
		}
	}
	return out
}

// SizeString is the selector with sizes in binary units, for people.
func (s Selector) SizeString() string {
	if s.Kind == SelConst {
		return units.FormatSize(s.Min)
	}
	if text, ok := s.unitString(); ok && s.Unit > 1 {
		return text + " (whole " + unitNames[s.Unit] + ")"
	}
	return s.format(units.FormatSize)
}
