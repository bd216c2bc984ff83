package report

import (
	"fmt"
	"io"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/objbench/objbench/result"
)

// LoggedOps lists the ops of r that have latency histograms, in table order.
func LoggedOps(r *result.Run) []string {
	var ops []string
	seen := map[string]bool{}
	for _, x := range rows(r) {
		if x.t.Latency.Count > 0 && !seen[x.t.Op] {
			seen[x.t.Op] = true
			ops = append(ops, x.t.Op)
		}
	}
	return ops
}

// WriteHDRLog writes op's latency as an HdrHistogram interval log (format
// 1.3, what HistogramLogProcessor and hdrhistogram-go's reader read): one
// untagged interval per second of every step, its streams merged, in
// microseconds. Timestamps are relative to the first step's start, which
// the StartTime and BaseTime headers give.
func WriteHDRLog(w io.Writer, r *result.Run, op string) error {
	lw := hdr.NewHistogramLogWriter(w)
	if len(r.Steps) == 0 {
		return nil
	}
	base := r.Steps[0].Start.UnixMilli()
	lw.SetBaseTime(base)
	for _, err := range []error{
		lw.OutputComment(fmt.Sprintf("objbench %s run %s: %s latency of successful ops in microseconds, one interval per second (the max column is in seconds)", r.Tool.Version, r.RunID, op)),
		lw.OutputStartTime(base), lw.OutputBaseTime(base), lw.OutputLegend(),
	} {
		if err != nil {
			return err
		}
	}
	for i := range r.Steps {
		st := &r.Steps[i]
		secs, err := stepSeconds(st.Streams, op)
		if err != nil {
			return fmt.Errorf("step %d: %w", st.Step, err)
		}
		if len(secs) == 0 {
			continue // no successful op of this kind: no header without intervals
		}
		conc := 0
		for _, s := range st.Streams {
			conc += s.Concurrency
		}
		head := fmt.Sprintf("step %d of the run: %s, step %d of its stage, conc %d", i+1, stageName(st), st.Step+1, conc)
		if err := lw.OutputComment(head); err != nil {
			return err
		}
		for t, h := range secs {
			if h == nil {
				continue
			}
			start := st.Start.UnixMilli() + int64(t)*1000
			h.SetStartTimeMs(start)
			h.SetEndTimeMs(start + 1000)
			if err := lw.OutputIntervalHistogram(h); err != nil {
				return err
			}
		}
	}
	return nil
}

// stepSeconds merges op's per-second latency histograms across streams,
// indexed by second; nil where the op had no successful op.
func stepSeconds(streams []result.Stream, op string) ([]*hdr.Histogram, error) {
	var out []*hdr.Histogram
	for _, str := range streams {
		for _, sec := range str.Seconds {
			for _, o := range sec.Ops {
				if o.Op != op || o.Latency == "" || sec.T < 0 {
					continue
				}
				h, err := result.DecodeHistogram(o.Latency)
				if err != nil {
					return nil, fmt.Errorf("second %d: decode histogram: %w", sec.T, err)
				}
				for int64(len(out)) <= sec.T {
					out = append(out, nil)
				}
				if out[sec.T] == nil {
					out[sec.T] = h
				} else {
					out[sec.T].Merge(h)
				}
			}
		}
	}
	return out, nil
}
