package report

import (
	"cmp"
	"slices"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/objbench/objbench/result"
)

// foldedRow is one row of one run: an op of a stream of a step, its
// repetitions (--repeat) folded into one.
type foldedRow struct {
	key   rowKey
	stage string // as the table shows it, sweep values and all
	conc  int
	total result.OpTotal
	hist  *hdr.Histogram // the repetitions' latencies merged, once there are two
	secs  float64        // the repetitions' windows, summed
}

// foldRepetitions is r's rows, each step's repetitions folded into one
// (counts summed, rates over the sum of the windows, percentiles of the
// merged latencies), in table order.
func foldRepetitions(r *result.Run) []foldedRow {
	var out []foldedRow
	at := map[rowKey]int{}
	for _, x := range rows(r) {
		k := rowKey{x.step.Stage, x.step.Step, x.stream.Name, x.t.Op}
		i, ok := at[k]
		if !ok {
			at[k] = len(out)
			out = append(out, foldedRow{key: k, stage: stepName(x.step), conc: x.stream.Concurrency, total: x.t,
				secs: x.stream.Window.Duration()})
			continue
		}
		out[i].add(x.stream, x.t)
	}
	for i := range out {
		out[i].total.LatencyHist = "" // the fold's: not kept
	}
	return out
}

// add folds another repetition of the row in.
func (f *foldedRow) add(s *result.Stream, t result.OpTotal) {
	tot := &f.total
	if f.hist == nil && tot.LatencyHist != "" {
		f.hist, _ = result.DecodeHistogram(tot.LatencyHist)
	}
	tot.AddCounts(&t)
	f.secs += s.Window.Duration()
	if f.secs > 0 {
		tot.OpsPerSec, tot.BytesPerSec = tot.WindowOps/f.secs, tot.WindowBytes/f.secs
	}
	if h, err := result.DecodeHistogram(t.LatencyHist); err == nil && h != nil {
		if f.hist == nil {
			f.hist = h
		} else {
			f.hist.Merge(h)
		}
	}
	if f.hist != nil {
		tot.Latency = result.PercentilesOf(f.hist)
	}
	f.conc = max(f.conc, s.Concurrency)
}

// sideTotal is a side's figures from its runs': counts summed, rates and
// percentiles the median of the runs', Min the least, Max the largest.
func sideTotal(runs []result.OpTotal) result.OpTotal {
	if len(runs) == 1 {
		return runs[0]
	}
	t := result.OpTotal{Op: runs[0].Op}
	of := func(get func(result.OpTotal) float64) float64 {
		v := make([]float64, len(runs))
		for i, r := range runs {
			v[i] = get(r)
		}
		return median(v)
	}
	ofInt := func(get func(result.Percentiles) int64) int64 {
		return int64(of(func(r result.OpTotal) float64 { return float64(get(r.Latency)) }) + 0.5)
	}
	var lat []result.Percentiles
	for i := range runs {
		t.AddCounts(&runs[i])
		lat = append(lat, runs[i].Latency)
	}
	t.OpsPerSec = of(func(r result.OpTotal) float64 { return r.OpsPerSec })
	t.BytesPerSec = of(func(r result.OpTotal) float64 { return r.BytesPerSec })
	p := &t.Latency
	p.P25 = ofInt(func(p result.Percentiles) int64 { return p.P25 })
	p.P50 = ofInt(func(p result.Percentiles) int64 { return p.P50 })
	p.P75 = ofInt(func(p result.Percentiles) int64 { return p.P75 })
	p.P90 = ofInt(func(p result.Percentiles) int64 { return p.P90 })
	p.P99 = ofInt(func(p result.Percentiles) int64 { return p.P99 })
	p.P999 = ofInt(func(p result.Percentiles) int64 { return p.P999 })
	p.Avg = of(func(r result.OpTotal) float64 { return r.Latency.Avg })
	for _, l := range lat {
		p.Count += l.Count
		p.Max = max(p.Max, l.Max)
	}
	p.Min = slices.MinFunc(lat, func(a, b result.Percentiles) int { return cmp.Compare(a.Min, b.Min) }).Min
	return t
}
