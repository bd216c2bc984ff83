package synth

import (
	"math"
	"sort"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/workload"
)

// opNames are the workload file's names of metrics' ops.
var opNames = [metrics.NumOps]string{
	metrics.OpPut: workload.OpPut, metrics.OpGet: workload.OpGet, metrics.OpStat: workload.OpStat,
	metrics.OpDelete: workload.OpDelete, metrics.OpList: workload.OpList,
	metrics.OpMultipart: workload.OpMultipart, metrics.OpRangeGet: workload.OpRangeGet,
}

// stream builds one main-stage stream with ops weighted by w, share of the
// trace's requests and of conc workers. raw streams read the written keys.
func (b *builder) stream(name string, w [metrics.NumOps]float64, share float64, conc int, raw bool) workload.Stream {
	s := workload.Stream{Name: name, Percent: true, Bounds: workload.Bounds{Duration: b.o.Duration}}
	s.Concurrency = []int{max(int(math.Round(float64(conc)*share)), 1)}
	if b.s.OpenLoop {
		rate := math.Max(math.Round(b.s.Rate.Mean*b.o.RateFactor*share*1000)/1000, 0.001)
		arrival := workload.ArrivalPoisson
		if b.s.Rate.Dispersion < 0.5 {
			arrival = workload.ArrivalUniform
		}
		s.Rate = &workload.Rate{PerSec: rate, Arrival: arrival}
	}
	size := b.reads
	switch {
	case raw:
		s.Objects = b.writtenSpace(b.s.RAW)
		size = b.writes
	case b.data:
		s.Objects = b.dataSpace()
	default:
		s.Objects = b.writtenSpace(b.s.Writes)
		size = b.writes
	}
	s.Size = size.Min
	if size.Kind != workload.SelConst {
		s.SizeDist = &size
	}
	if size.Max < 1 { // a range of an empty object: read it whole
		w[metrics.OpGet] += w[metrics.OpRangeGet]
		w[metrics.OpRangeGet] = 0
	}
	for op, pct := range percentages(w) {
		if pct == 0 {
			continue
		}
		m := workload.OpWeight{Op: opNames[op], Weight: pct}
		switch metrics.Op(op) {
		case metrics.OpPut, metrics.OpMultipart, metrics.OpDelete:
			ks := b.writtenSpace(b.s.Writes)
			m.Objects = &ks
			if h := &b.p.ops[op].sizes; op != int(metrics.OpDelete) && h.count > 0 {
				sel := h.selector()
				m.SizeDist = &sel
			}
		case metrics.OpRangeGet:
			s.RangeSize = max(min(b.p.ranges.median(), size.Max), 1)
		}
		s.Mix = append(s.Mix, m)
	}
	return s
}

// percentages turns weights into whole percentages summing to 100 by
// largest remainder; an op with any weight gets at least 1.
func percentages(w [metrics.NumOps]float64) [metrics.NumOps]int {
	var out [metrics.NumOps]int
	total := sum(w[:])
	if total <= 0 {
		return out
	}
	type rem struct {
		op   int
		frac float64
	}
	var rems []rem
	left := 100
	for op, x := range w {
		if x <= 0 {
			continue
		}
		exact := 100 * x / total
		out[op] = max(int(exact), 1)
		left -= out[op]
		rems = append(rems, rem{op, exact - math.Floor(exact)})
	}
	sort.SliceStable(rems, func(i, j int) bool { return rems[i].frac > rems[j].frac })
	for i := 0; left > 0 && len(rems) > 0; i++ {
		out[rems[i%len(rems)].op]++
		left--
	}
	for left < 0 { // ops raised to 1% took it from the largest
		big := 0
		for op := range out {
			if out[op] > out[big] {
				big = op
			}
		}
		out[big]--
		left++
	}
	return out
}
