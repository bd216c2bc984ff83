package result

import "fmt"

// setWindowWith is s.SetWindow(w) for a merged stream whose seconds'
// histograms were summed as they were written (hists, by op: latency,
// TTFB, response; mergeRange), rather than decoded again one by one (a
// merged hour's 7,200 histograms, a serial tenth of its merge). The
// counts are summed as SetWindow sums them, in the seconds' order, so
// that every rate is the same to the last bit.
func setWindowWith(s *Stream, w Window, hists map[string]*[3]*pagedHist) error {
	KeepEdgeTicks(s.Seconds, w)
	counts := newSummarizer(w, false)
	counts.noHists = true
	for _, sec := range s.Seconds {
		for i := range sec.Ops {
			if err := counts.add(sec.T, &sec.Ops[i], nil); err != nil {
				return fmt.Errorf("stream %s: %w", s.Name, err)
			}
		}
	}
	for op, acc := range hists {
		tot := counts.byOp[op]
		if tot == nil { // every merged second of op is past the last that received anything
			continue
		}
		for k, h := range acc {
			if h != nil && !h.empty() {
				tot.acc[k] = h
			}
		}
	}
	s.Window, s.Totals = w, counts.totals(w)
	return nil
}
