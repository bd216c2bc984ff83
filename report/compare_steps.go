package report

import "github.com/objbench/objbench/result"

// MainSteps is r with its main steps only: what compare sets side by side
// unless asked for every step. A prepare or cleanup step's few ops in a
// fraction of a second are not what a run measures, and their rates
// dwarf the main steps' in a chart. Nothing of r is changed.
func MainSteps(r *result.Run) *result.Run {
	out := *r
	out.Steps = nil
	for _, st := range r.Steps {
		if st.Kind == result.KindMain {
			out.Steps = append(out.Steps, st)
		}
	}
	return &out
}
