package loadgen

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/workload"
)

// failurePolicy is when a run stops before its end, and why: the failed
// ops it allows in all (Config.MaxErrors), the running step's error ratio
// (a stage's OnError: errorWatch), and a stream's store refusing it for
// too long (refused.go). The first reason wins; the run then starts no
// more steps but cleanup and dispose.
type failurePolicy struct {
	maxErrors int64
	failed    atomic.Int64
	// watch is the running step's error ratio, if any: set between steps,
	// read by the workers.
	watch   *errorWatch
	stopAll context.CancelFunc // ends the run's context
	mu      sync.Mutex
	why     string
	detail  string
}

func newFailurePolicy(maxErrors int64, stopAll context.CancelFunc) *failurePolicy {
	return &failurePolicy{maxErrors: maxErrors, stopAll: stopAll}
}

// abort stops the run (the first reason wins): no more steps but cleanup.
func (p *failurePolicy) abort(why, detail string) {
	p.mu.Lock()
	if p.why == "" {
		p.why, p.detail = why, detail
	}
	p.mu.Unlock()
	p.stopAll()
}

// aborted is why the run was aborted ("max-errors", "error-ratio",
// "refused"), "" while it was not.
func (p *failurePolicy) aborted() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.why
}

// reason is why the run was aborted and the detail of it.
func (p *failurePolicy) reason() (why, detail string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.why, p.detail
}

// count notes one finished op against the run's limits (from the
// workers, concurrently).
func (p *failurePolicy) count(failed bool) {
	if failed && p.maxErrors > 0 && p.failed.Add(1) >= p.maxErrors {
		p.abort("max-errors", fmt.Sprintf("%d ops failed (the most allowed: %d)", p.maxErrors, p.maxErrors))
	}
	if w := p.watch; w != nil {
		w.observe(p, failed)
	}
}

// stepStarts applies st's error ratio to the step about to run, until
// stepEnds judges it.
func (p *failurePolicy) stepStarts(st workload.Stage) { p.watch = newErrorWatch(st) }

// stepEnds judges the step that ran whole (ended true: not cut short by
// an error) against its stage's error ratio, and says why the workflow
// stops when that ratio was crossed ("" when it was not).
func (p *failurePolicy) stepEnds(ended bool) string {
	w := p.watch
	p.watch = nil
	if w == nil || !ended {
		return ""
	}
	w.final(p)
	if why, detail := p.reason(); why == "error-ratio" {
		return "workflow stopped: " + detail
	}
	return ""
}

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
func (w *errorWatch) observe(p *failurePolicy, failed bool) {
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
		p.abort("error-ratio", w.detail(ops, errs))
	}
}

// final judges the whole step once it is over.
func (w *errorWatch) final(p *failurePolicy) {
	if ops, errs := w.ops.Load(), w.errs.Load(); w.crossed(ops, errs, true) {
		p.abort("error-ratio", w.detail(ops, errs))
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
