package synth

import (
	"math"
	"math/bits"

	"github.com/objbench/objbench/workload"
)

// sizeHist counts sizes in power-of-two bins (bin 0 holds 0, bin k holds
// 2^(k-1)..2^k-1) and keeps the smallest and largest value seen in each,
// so a trace of one size gives back exactly that size.
type sizeHist struct {
	n      [65]int64
	lo, hi [65]int64
	count  int64
	sum    float64
}

func (h *sizeHist) add(v int64) {
	v = max(v, 0)
	b := bits.Len64(uint64(v))
	if h.n[b] == 0 || v < h.lo[b] {
		h.lo[b] = v
	}
	if h.n[b] == 0 || v > h.hi[b] {
		h.hi[b] = v
	}
	h.n[b]++
	h.count++
	h.sum += float64(v)
}

func (h *sizeHist) mean() float64 {
	if h.count == 0 {
		return 0
	}
	return h.sum / float64(h.count)
}

// selector is the histogram as a size selector: c(N) for one value, else
// h(lo|hi|weight,...) over the bins that were used, each spanning the
// values seen in it.
func (h *sizeHist) selector() workload.Selector {
	var bins []workload.Bin
	scale := 1.0
	if h.count > 1<<40 { // weights must stay below 2^40
		scale = float64(1<<40) / float64(h.count)
	}
	for b, n := range h.n {
		if n > 0 {
			bins = append(bins, workload.Bin{Lo: h.lo[b], Hi: h.hi[b], Weight: max(int64(math.Round(float64(n)*scale)), 1)})
		}
	}
	switch {
	case len(bins) == 0:
		return workload.Const(0)
	case len(bins) == 1 && bins[0].Lo == bins[0].Hi:
		return workload.Const(bins[0].Lo)
	}
	sel := workload.Selector{Kind: workload.SelHistogram, Bins: bins, Min: bins[0].Lo, Max: bins[len(bins)-1].Hi}
	return sel
}

// median is the middle of the bin holding the median value.
func (h *sizeHist) median() int64 {
	var cum int64
	for b, n := range h.n {
		if cum += n; n > 0 && 2*cum >= h.count {
			return (h.lo[b] + h.hi[b]) / 2
		}
	}
	return 0
}
