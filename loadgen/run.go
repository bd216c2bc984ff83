package loadgen

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/workload"
)

// runState is one run under way: its config and the parts that each keep
// one side of it (stores.go, data.go, failure.go, ledger.go), composed by
// the flow of stages and steps below.
type runState struct {
	cfg     Config
	drivers map[string]int // COSBench drivers' ranks (workload.Spec.DriverRanks)
	stores  *runStores
	data    *runData
	policy  *failurePolicy
	ledger  *cleanupLedger
	// logStep is the step running, as the op log names it; it changes
	// only between steps.
	logStep string
}

// Run executes cfg.Spec. When ctx ends (an interrupt) it stops issuing,
// lets in-flight ops finish within the grace period, skips the remaining
// stages except cleanup and dispose, which still run. The outcome holds
// every step that ran, also when an error is returned.
func Run(ctx context.Context, cfg Config) (*Outcome, error) {
	if errs := cfg.Spec.Validate(); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if ns := cfg.Namespace; ns == "" || !strings.HasSuffix(ns, "/") {
		return nil, fmt.Errorf("loadgen: a run namespace ending in '/' is needed (got %q): everything a run writes lives under it", ns)
	}
	if cfg.Store == nil || cfg.Block == nil {
		return nil, errors.New("loadgen: Config needs a Store and a payload Block")
	}
	if cfg.Grace <= 0 {
		cfg.Grace = DefaultGrace
	}
	if cfg.CleanupTimeout <= 0 {
		cfg.CleanupTimeout = 5 * time.Minute
	}
	runCtx, abortAll := context.WithCancel(ctx)
	defer abortAll()
	// An interrupt leaves the run two graces: one for in-flight ops, one
	// for cleanup and dispose; then those are cut short too.
	cutCtx, cut := context.WithCancel(context.WithoutCancel(ctx))
	defer cut()
	defer context.AfterFunc(ctx, func() { time.AfterFunc(2*cfg.Grace, cut) })()
	r := &runState{cfg: cfg, drivers: cfg.Spec.DriverRanks(), stores: newRunStores(cfg), data: newRunData(cfg),
		policy: newFailurePolicy(cfg.MaxErrors, abortAll), ledger: newCleanupLedger(cfg.Namespace, cfg.Worker)}
	if err := r.preflight(); err != nil {
		return nil, err
	}
	defer r.data.closeAll()
	if cfg.BareKeys {
		if err := r.checkBareWrites(ctx); err != nil {
			return nil, err
		}
	}
	out := &Outcome{}
	var failed error
	stopping := false
	for _, st := range cfg.Spec.Stages {
		if !stopping && cfg.Stopping != nil && (failed != nil || runCtx.Err() != nil) {
			stopping = true
			cfg.Stopping(stopWord(ctx, r, failed))
		}
		if failed != nil && st.Kind != result.KindCleanup && st.Kind != result.KindDispose {
			continue
		}
		if err := r.runStage(cutCtx, runCtx, st, out); err != nil && failed == nil {
			// Stop the workflow, but still clean up what it wrote.
			failed = err
			abortAll()
		}
	}
	out.Interrupted = ctx.Err() != nil
	if cfg.BareKeys {
		r.bareLeftovers()
	}
	out.Aborted, out.AbortDetail = r.policy.reason()
	if ok, note := r.ledger.cleanedUp(); !ok {
		out.CleanedUp, out.CleanupNote = false, note
	}
	return out, failed
}

// stopWord says in a word or two why a run stops before its end.
func stopWord(ctx context.Context, r *runState, failed error) string {
	switch {
	case ctx.Err() != nil:
		return "interrupted"
	case r.policy.aborted() != "":
		return "aborted " + r.policy.aborted()
	case failed != nil:
		return "failed"
	}
	return "stopped"
}

// preflight fails before any stage for what the target cannot do at all.
func (r *runState) preflight() error {
	if w := r.cfg.Worker; !w.Solo() {
		for d, rank := range r.drivers {
			if rank >= w.N() {
				return fmt.Errorf("a COSBench work runs on %s, worker %d, but the run has %d workers", d, rank, w.N())
			}
		}
	}
	if _, err := Split(r.cfg.Spec, r.cfg.Worker); err != nil && r.cfg.Replay == nil { // a replay splits its trace by itself
		return err
	}
	_, multipart := r.cfg.Store.(storage.Multiparter)
	for _, st := range r.cfg.Spec.Stages {
		for _, s := range st.Streams {
			for _, m := range s.Mix {
				if op, _ := workload.CanonicalOp(m.Op); op == workload.OpMultipart && !multipart && st.Kind == result.KindMain && !replayOf(r, st.Kind, s.Name) {
					// (A replay's multipart uploads are counted as not
					// implemented, each, beside the rest of its trace.)
					return fmt.Errorf("stream %s: multipart needs a store with multipart uploads (S3), not this one", s.Name)
				}
			}
		}
	}
	return nil
}

// runStage runs every step of st. Cleanup and dispose run even after an
// interrupt or an abort, on a deadline of their own (unless NoCleanup)
// within cutCtx; other stages start no step once runCtx has ended.
func (r *runState) runStage(cutCtx, runCtx context.Context, st workload.Stage, out *Outcome) error {
	if st.Kind == result.KindCleanup || st.Kind == result.KindDispose {
		if r.cfg.NoCleanup {
			return nil
		}
		if r.cfg.Dataset {
			out.Steps = append(out.Steps, result.Step{Stage: st.Name, Kind: string(st.Kind), Start: time.Now(),
				Notes: []string{"skipped: the data set is kept (objbench dataset rm deletes it)"}})
			return nil
		}
		cctx, cancel := context.WithTimeout(cutCtx, r.cfg.CleanupTimeout)
		defer cancel()
		r.logStep = st.Name
		if err := r.beforeStep(cctx, st, 0); err != nil {
			return err
		}
		if r.cfg.Adopted != nil && !r.cfg.Worker.Solo() {
			r.ledger.adopt(r.cfg.Adopted())
		}
		var step result.Step
		var err error
		switch {
		case st.Kind == result.KindDispose && !r.ledger.forRankZero(): // rank 0 disposes, or who cleans up for it
			step = result.Step{Stage: st.Name, Kind: string(st.Kind), Start: time.Now(), Notes: []string{"buckets are disposed of by worker 0"}}
		case st.Kind == result.KindDispose:
			step, err = r.dispose(cctx, st)
		case !r.ledger.wroteAny.Load() && r.cfg.Worker.Solo() && !r.cfg.DeleteDataset:
			// Nothing of this run was stored: deleting its keys would only
			// send requests for objects that are not there.
			step = result.Step{Stage: st.Name, Kind: string(st.Kind), Start: time.Now(), Notes: []string{"nothing was written: cleanup skipped"}}
		default:
			step, err = r.cleanup(cctx, st)
		}
		if cutCtx.Err() != nil { // the interrupt's time ran out under it
			why := fmt.Sprintf("%s cut short %v after the interrupt (twice the grace): objects of this run may be left under %s",
				st.Name, 2*r.cfg.Grace, r.cfg.Namespace)
			step.Notes = append(step.Notes, why)
			r.ledger.leftover(why)
		}
		out.Steps = append(out.Steps, step)
		if err == nil && st.Kind == result.KindCleanup && cutCtx.Err() == nil {
			out.CleanedUp = true
		}
		return err
	}
	reps := 1
	if st.Kind == result.KindMain && r.cfg.Repeat > 1 {
		reps = r.cfg.Repeat
	}
	for rep := 0; rep < reps; rep++ { // the whole sweep again: steps interleave, so a drift shows in every step alike
		if err := r.runSteps(runCtx, st, rep, reps, out); err != nil {
			return err
		}
	}
	return nil
}

// runSteps runs the steps of a stage that is not cleanup or dispose once
// (repetition rep of reps).
func (r *runState) runSteps(runCtx context.Context, st workload.Stage, rep, reps int, out *Outcome) error {
	for i := 0; i < st.Steps() && runCtx.Err() == nil; i++ {
		if err := r.beforeStep(runCtx, st, i); err != nil {
			return err
		}
		r.logStep = stepLabel(st, i, rep, reps)
		var step result.Step
		var err error
		switch {
		case st.Kind == workload.KindInit && r.cfg.Worker.Rank > 0:
			step = result.Step{Stage: st.Name, Kind: string(st.Kind), Start: time.Now(), Notes: []string{"buckets are created by worker 0"}}
		case st.Kind == workload.KindInit:
			step, err = r.initBuckets(runCtx, st)
		case st.Kind == workload.KindDelay:
			step = r.delay(runCtx, st)
		default:
			step, err = r.step(runCtx, st, i)
		}
		if err != nil {
			return err
		}
		if reps > 1 {
			step.Repetition = rep + 1
		}
		out.Steps = append(out.Steps, step)
		if r.cfg.StepDone != nil {
			r.cfg.StepDone(step)
		}
	}
	return nil
}

// beforeStep meets the other workers (BeforeStep) and announces the step.
func (r *runState) beforeStep(ctx context.Context, st workload.Stage, i int) error {
	if r.cfg.BeforeStep != nil {
		if err := r.cfg.BeforeStep(ctx, st, i); err != nil {
			return fmt.Errorf("%s step %d: %w", st.Name, i+1, err)
		}
	}
	if r.cfg.OnStep != nil {
		r.cfg.OnStep(st, i)
	}
	return nil
}
