package report

import (
	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/objbench/objbench/result"
)

// stepTotal sums the rows of a step (each op of each stream), as
// COSBench's "Total" lines sum its drivers and works: counts and bytes
// add, rates add (each stream's over its own window: they ran side by
// side), and latencies come from the rows' histograms merged, never from
// averaged percentiles. ok is false when the step has fewer than two rows.
func stepTotal(st *result.Step) (t result.OpTotal, conc int, ok bool) {
	rows := 0
	for i := range st.Streams {
		rows += len(st.Streams[i].Totals)
	}
	if rows < 2 { // nothing to sum: no histogram decoded
		return t, 0, false
	}
	rows = 0
	t = result.OpTotal{Op: "TOTAL"}
	var merged *hdr.Histogram
	for i := range st.Streams {
		s := &st.Streams[i]
		conc += s.Concurrency
		for _, o := range s.Totals {
			rows++
			t.Ops, t.OK, t.Bytes = t.Ops+o.Ops, t.OK+o.OK, t.Bytes+o.Bytes
			t.OpsPerSec, t.BytesPerSec = t.OpsPerSec+o.OpsPerSec, t.BytesPerSec+o.BytesPerSec
			t.WindowOps, t.WindowBytes = t.WindowOps+o.WindowOps, t.WindowBytes+o.WindowBytes
			for c, n := range o.Errors {
				if t.Errors == nil {
					t.Errors = map[string]int64{}
				}
				t.Errors[c] += n
			}
			if o.LatencyHist == "" {
				continue
			}
			h, err := result.DecodeHistogram(o.LatencyHist)
			if err != nil {
				continue // the row's own line shows its latency
			}
			if merged == nil {
				merged = h
			} else {
				merged.Merge(h)
			}
		}
	}
	if merged != nil {
		t.Latency = result.PercentilesOf(merged)
	}
	return t, conc, rows > 1
}
