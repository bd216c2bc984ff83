package result

import (
	"slices"
)

// Outage is a period in which a stream could not reach its store at all
// (connections refused or reset, dials failing): from the end of the first
// op that failed so after a success, to the end of the next op that
// succeeded. Its workers backed off meanwhile, so the ops lost stay few;
// the period is the time the store was unavailable.
type Outage struct {
	Start float64 `json:"start_s"` // seconds from the step's start
	End   float64 `json:"end_s"`
	// Open: no op succeeded again before the step ended (End is when the
	// last op failed).
	Open    bool  `json:"open,omitempty"`
	OpsLost int64 `json:"ops_lost"` // ops that failed for want of a connection in it
}

// Duration is the outage's length in seconds.
func (o Outage) Duration() float64 { return o.End - o.Start }

// Unavailable is the time the outages cover, in seconds (overlaps once).
func Unavailable(outages []Outage) float64 {
	var sum float64
	for _, o := range JoinOutages(outages) {
		sum += o.Duration()
	}
	return sum
}

// JoinOutages orders outages by start and joins the ones that overlap or
// touch: the ops lost add up, and the joined one is open if its last part
// is. Outages of several workers of a run, put on one clock, become the
// periods the store was unavailable to any of them.
func JoinOutages(outages []Outage) []Outage {
	if len(outages) == 0 {
		return nil
	}
	in := slices.Clone(outages)
	slices.SortFunc(in, func(a, b Outage) int {
		switch {
		case a.Start < b.Start:
			return -1
		case a.Start > b.Start:
			return 1
		}
		return 0
	})
	out := []Outage{in[0]}
	for _, o := range in[1:] {
		last := &out[len(out)-1]
		if o.Start > last.End {
			out = append(out, o)
			continue
		}
		if o.End >= last.End {
			last.End, last.Open = o.End, o.Open
		}
		last.OpsLost += o.OpsLost
	}
	return out
}
