package saturate

import (
	"fmt"
	"strings"

	"github.com/objbench/objbench/result"
)

// Record gathers the runs of a search's steps into one result file: each
// step's run (prepare, main, cleanup) in turn, its steps labelled with
// the stepped value, and the curve and knee beside them.
type Record struct {
	runs   []*result.Run
	labels []string
}

// Add keeps the run of the step at value v (a rate, or workers when
// byWorkers).
func (r *Record) Add(run *result.Run, v float64, byWorkers bool) {
	label := fmt.Sprintf("rate %s/s", trim(v))
	if byWorkers {
		label = fmt.Sprintf("%s workers", trim(v))
	}
	r.runs, r.labels = append(r.runs, run), append(r.labels, label)
}

func trim(v float64) string { return strings.TrimSuffix(fmt.Sprintf("%.2f", v), ".00") }

// Run is the whole search as one result: the first step's run's facts
// (tool, machine, target, workload), every step's steps, runID its id.
// It is nil when no step ran.
func (r *Record) Run(runID string, res Result, c Config, byWorkers bool) *result.Run {
	if len(r.runs) == 0 {
		return nil
	}
	first, last := r.runs[0], r.runs[len(r.runs)-1]
	out := &result.Run{RunInfo: first.RunInfo, Machine: first.Machine, Target: first.Target, Spec: first.Spec, CleanedUp: true}
	out.RunID, out.Finished, out.Failure = runID, last.Finished, nil
	var notes []string
	for i, run := range r.runs {
		for _, st := range run.Steps {
			st.Step, st.Sweep = i, r.labels[i]
			out.Steps = append(out.Steps, st)
		}
		out.Interrupted = out.Interrupted || run.Interrupted
		out.CleanedUp = out.CleanedUp && run.CleanedUp
		if run.CleanupNote != "" {
			notes = append(notes, r.labels[i]+": "+run.CleanupNote)
		}
		if run.Failure != nil && out.Failure == nil {
			out.Failure = run.Failure
		}
	}
	out.CleanupNote = strings.Join(notes, "; ")
	sat := &result.Saturation{By: "rate", P99: c.Objective.P99, MaxErrorRatio: c.Objective.MaxErrorRatio,
		Points: res.Points, StoppedBy: res.StoppedBy}
	if byWorkers {
		sat.By = "concurrency"
	}
	if sat.MaxErrorRatio == 0 {
		sat.MaxErrorRatio = defaultMaxErrorRatio
	}
	for i, p := range sat.Points { // each step has its own rate
		if res.Best != nil && res.Best.Rate == p.Rate {
			sat.Best = &sat.Points[i]
		}
		if res.Knee != nil && res.Knee.Rate == p.Rate {
			sat.Knee = &sat.Points[i]
		}
	}
	out.Saturation = sat
	return out
}
