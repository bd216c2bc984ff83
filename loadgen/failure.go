package loadgen

import (
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/workload"
)

// minOpsForRatio: a ratio judged on fewer ops is noise (one failure in the
// first three ops is not "33% errors"). At the end of a step every count
// is judged, and a ratio of 0 stops at the first failure.
const minOpsForRatio = 100

// errorWatch applies a stage's failure policy (COSBench's afr) to one step.
type errorWatch struct {
	stage string
	ratio float64
	ops   atomic.Int64
	errs  atomic.Int64
}

// newErrorWatch returns the watch for a step of st, or nil when the stage
// never stops on errors (or is judged at its end). Cleanup always runs to
// the end.
func newErrorWatch(st workload.Stage) *errorWatch {
	if st.OnError == nil || st.OnError.AtEnd || st.Kind == result.KindCleanup || st.OnError.MaxErrorRatio >= 1 {
		return nil
	}
	return &errorWatch{stage: st.Name, ratio: st.OnError.MaxErrorRatio}
}

// observe counts one op and stops the run when the ratio is crossed.
func (w *errorWatch) observe(r *runState, failed bool) {
	w.ops.Add(1)
	if !failed {
		return // a success never crosses the line
	}
	w.errs.Add(1)
	// Every op counts itself before its error, so loading errors first
	// and ops second never sees more errors than ops.
	errs := w.errs.Load()
	ops := w.ops.Load()
	if w.crossed(ops, errs, false) {
		r.abort("error-ratio", w.detail(ops, errs))
	}
}

// final judges the whole step once it is over.
func (w *errorWatch) final(r *runState) {
	if ops, errs := w.ops.Load(), w.errs.Load(); w.crossed(ops, errs, true) {
		r.abort("error-ratio", w.detail(ops, errs))
	}
}

func (w *errorWatch) crossed(ops, errs int64, final bool) bool {
	switch {
	case errs == 0:
		return false
	case w.ratio == 0:
		return true
	case !final && ops < minOpsForRatio:
		return false
	}
	return float64(errs) > w.ratio*float64(ops)
}

func (w *errorWatch) detail(ops, errs int64) string {
	allowed := "no failures allowed"
	if w.ratio > 0 {
		allowed = "more than the " + strconv.FormatFloat(w.ratio*100, 'f', -1, 64) + "% allowed"
	}
	return fmt.Sprintf("stage %q: %d of %d ops failed (%.1f%%), %s", w.stage, errs, ops, 100*float64(errs)/float64(max(ops, 1)), allowed)
}

// judgeAtEnd applies a policy judged at the end of the stage (COSBench's
// afr: StageRunner.reachAFRGoal) to a finished step: each stream, with its
// own ratio, over every op its result counts. It names the streams whose
// failed ops exceed the ratio; the workflow goes on.
func judgeAtEnd(st workload.Stage, specs []workload.Stream, results []result.Stream) []string {
	f := st.OnError
	if f == nil || !f.AtEnd || (st.Kind != result.KindMain && st.Kind != result.KindPrepare) {
		return nil
	}
	var out []string
	for j, rs := range results {
		ratio := f.MaxErrorRatio
		if j < len(specs) && specs[j].MaxErrorRatio != nil {
			ratio = *specs[j].MaxErrorRatio
		}
		var ops, failed int64
		for _, t := range rs.Totals {
			ops, failed = ops+t.Ops, failed+t.Failed()
		}
		if failed > 0 && float64(failed) > ratio*float64(ops) {
			out = append(out, fmt.Sprintf("work %q: %d of %d ops failed (%.1f%%), more than its afr of %s%%", rs.Name, failed, ops,
				100*float64(failed)/float64(ops), strconv.FormatFloat(ratio*100, 'f', -1, 64)))
		}
	}
	return out
}
