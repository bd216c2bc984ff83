package transfer

import "context"

// WithSpillRun makes o keep at most n bytes of what an upload wrote in
// memory before a sorted run goes to disk: a small n makes a small test
// spill.
func WithSpillRun(o Options, n int) Options {
	o.spillRun = n
	return o
}

// CleanSpilling is Clean with its work files under tmp, sorted in runs of
// runBytes.
var CleanSpilling = clean

// SpilledRuns is how many sorted runs of what was written went to disk.
func SpilledRuns(w *Written) int { return w.s.Runs() }

// PlanItems is every item of p, as Each hands them out.
func PlanItems(p *Plan) []Item {
	var out []Item
	_ = p.Each(context.Background(), func(it Item) error {
		out = append(out, it)
		return nil
	})
	return out
}
