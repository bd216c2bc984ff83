package merge

import (
	"fmt"

	"github.com/objbench/objbench/internal/resultpack"
	"github.com/objbench/objbench/result"
)

// setWindowWith is s.SetWindow(w) for a merged stream whose seconds'
// histograms were summed as they were written (hists, by op: latency,
// TTFB, response; mergeRange), rather than decoded again one by one (a
// merged hour's 7,200 histograms, a serial tenth of its merge). The
// counts are summed as SetWindow sums them, in the seconds' order, so
// that every rate is the same to the last bit.
func setWindowWith(s *result.Stream, w result.Window, hists map[string]*[3]*resultpack.Paged) error {
	result.KeepEdgeTicks(s.Seconds, w)
	sum := result.NewSummary(w)
	seen := map[string]bool{}
	for _, sec := range s.Seconds {
		for i := range sec.Ops {
			sum.AddCounts(sec.T, &sec.Ops[i])
			seen[sec.Ops[i].Op] = true
		}
	}
	var sw resultpack.SplitWriter
	for op, acc := range hists {
		if !seen[op] { // every merged second of op is past the last that received anything
			continue
		}
		var enc [3]string
		for k, h := range acc {
			if h == nil {
				continue
			}
			var err error
			if enc[k], _, err = h.Pack(&sw, nil, nil); err != nil {
				return fmt.Errorf("stream %s, op %s: %w", s.Name, op, err)
			}
		}
		if err := sum.AddHistograms(op, enc[0], enc[1], enc[2]); err != nil {
			return fmt.Errorf("stream %s: %w", s.Name, err)
		}
	}
	s.Window, s.Totals = w, sum.Totals()
	return nil
}
