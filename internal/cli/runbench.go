package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/objbench/objbench/atomicfile"
	"github.com/objbench/objbench/distributed"
	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/report"
	"github.com/objbench/objbench/report/cosbenchcsv"
	"github.com/objbench/objbench/report/live"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/run"
	"github.com/objbench/objbench/workload"
)

// maxRepeat bounds --repeat: a step run more often than this is a typo.
const maxRepeat = 1000

// runBench runs spec against the target the options name, writes the result
// file (also when interrupted), prints the table and returns the error that
// decides the exit code.
func runBench(ctx context.Context, env Env, o *benchOptions, sp workload.Spec) error {
	note := notes(env, o.quiet)
	if errs := sp.Validate(); len(errs) > 0 && o.plan == nil {
		return usageError{errors.Join(errs...)}
	}
	if o.repeat < 1 || o.repeat > maxRepeat {
		return usagef("--repeat %d: want 1 to %d", o.repeat, maxRepeat)
	}
	if len(o.target.targets) > 1 {
		return runTargets(ctx, env, o, sp)
	}
	wk, engine, runID, err := o.dist.resolve(env)
	if err != nil {
		return err
	}
	if runID == "" {
		runID = run.NewRunID()
	}
	var pl *planned
	if o.plan != nil { // the workload comes from reading an input that needs the run's namespace (a replay)
		if pl, err = o.plan(runID); err != nil {
			return err
		}
		defer pl.close()
		sp = pl.spec
	}
	if strings.HasPrefix(o.out, "s3://") && o.outBucket == "" { // replay's --out takes one value
		o.outBucket, o.out = o.out, ""
	}
	place, err := placeResult(o.out, o.outBucket, runID, wk)
	if err != nil {
		return err
	}
	o.out = place.local
	if err := checkOutputs(o.outputs()...); err != nil { // before any I/O
		return err
	}
	ln, err := listenLive(o.listen) // a bad --listen stops the run before any work
	if err != nil {
		return err
	}
	maxConc := maxConcurrency(sp, o.target.timeout)
	if pl != nil {
		maxConc = max(maxConc, pl.workers)
	}
	if err := checkOpenFiles(maxConc); err != nil {
		closeListener(ln)
		return err
	}
	defer paceGC(env, maxConc, note)()
	o.target.versioned = sp.Versioned() // the embedded server's bucket then keeps versions
	tgt, err := o.target.open(ctx, env, maxConc, note)
	if err != nil {
		closeListener(ln)
		return err
	}
	defer func() { _ = tgt.Close(context.WithoutCancel(ctx)) }()
	sp = sp.ForTarget(o.target.target, tgt.Info.Kind) // a stream's per_target counts
	if err := checkSplit(sp, wk); err != nil {        // every process refuses alike, before any load
		closeListener(ln)
		return err
	}
	if pl != nil && pl.check != nil {
		if err := pl.check(ctx, tgt.Store); err != nil {
			closeListener(ln)
			return inputError{err}
		}
	}
	// Before any work, after every input is checked: the result's bucket.
	if err := place.check(ctx, tgt); err != nil {
		closeListener(ln)
		return err
	}
	if wk.Rank == 0 && !o.target.lazyBucket {
		warnLacking(ctx, tgt, sp, note, warnings(env))
	}
	ol, err := createOpLog(o.opLog)
	if err != nil {
		closeListener(ln)
		return err
	}
	if ln != nil {
		note("live view: http://%s/", browsable(ln.Addr()))
	}
	if o.cpuProfile != "" {
		stopProfile, err := startCPUProfile(o.cpuProfile)
		if err != nil {
			return err
		}
		defer stopProfile()
	}
	ns := "objbench/" + runID + "/"
	if sp.Dataset != "" {
		ns = workload.DatasetNamespace(sp.Dataset)
	}
	where, cleanCmd := whereRunWrites(tgt.Info, ns, runID)
	switch {
	case sp.BareKeys:
		// Nothing but the run's own record tells its objects from others':
		// objbench clean, which lists a namespace, cannot find them.
		note("run %s writes its objects under COSBench's names (--cosbench-keys) in %s, and its own records under %s", runID, tgt.Info.Label(), ns)
		if cleanCmd != "" { // (not the embedded server's memory, which goes with the process)
			env.Last.Set(fmt.Sprintf("run %s may have left objects it wrote under COSBench's names in %s, and no result file: nothing tells them from others' objects now, so objbench deletes none of them",
				runID, tgt.Info.Label()))
		}
	default:
		note("run %s writes under %s", runID, where)
		if sp.Dataset == "" && cleanCmd != "" {
			env.Last.Set(fmt.Sprintf("run %s left what it wrote under %s, and no result file; %s deletes it", runID, where, cleanCmd))
		}
	}
	defer env.Last.Set("")
	stopNote := context.AfterFunc(ctx, func() {
		// Said whatever -q says: the second interrupt leaves objects behind.
		fmt.Fprintf(env.Stderr, "objbench: interrupt: finishing in-flight ops, then cleaning up run %s (%s); Ctrl-C again quits at once and leaves them\n", runID, where)
	})
	defer stopNote()
	opts := run.Options{RunID: runID, Seed: o.seed, Tool: tool(),
		Grace: o.grace, MaxErrors: o.maxErrors, NoCleanup: o.noCleanup, OpenLoopHorizon: o.target.timeout, DeleteDataset: o.deleteDataset,
		MaxConns: maxConc, LinkSpeed: o.linkBps, Note: note, Warn: warnings(env), Repeat: o.repeat,
		Worker: wk, Engine: engine, RendezvousTimeout: o.dist.rendezvousTO, MaxSkew: o.dist.maxSkew,
		OnStep: func(st workload.Stage, i int) { note("%s", describeStep(st, i)) },
		OnStepDone: func(s result.Step) { // an AI profile's figures, as each step ends
			if l := report.AIStepLine(&s); l != "" {
				note("%s: %s", s.Stage, l)
			}
		}}
	if ol != nil {
		opts.OpLog = ol
	}
	if ln != nil { // the live view: a page, its event stream and Prometheus /metrics
		view := live.New(live.Info{RunID: runID, Target: tgt.Info.Describe()})
		view.Start(ln)
		defer closeLive(ctx, view)
		opts.Observer = view
	}
	if pl != nil {
		opts.Replay, opts.ReplayInfo, opts.Scripts = pl.replay, pl.info, pl.scripts
	}
	if o.memProfile != "" {
		snap := heapProfileAtMainEnd(o.memProfile)
		onStep := opts.OnStep
		opts.OnStep = func(st workload.Stage, i int) { snap(st); onStep(st, i) }
	}
	prog := withProgress(env, o.quiet, &opts)
	res, runErr := run.Run(ctx, sp, tgt, opts)
	prog.done()
	if ol != nil {
		if err := ol.Close(); err != nil {
			runErr = errors.Join(runErr, fmt.Errorf("--op-log %s: %w", o.opLog, err))
		} else if res != nil {
			note("op log: %s", o.opLog)
		}
	}
	if pl != nil && pl.err != nil {
		if err := pl.err(); err != nil {
			runErr = errors.Join(runErr, err)
		}
	}
	var dup *distributed.DuplicateError
	var plan *distributed.PlanError
	var missing *distributed.MissingError
	var skew *distributed.SkewError
	switch {
	case errors.As(runErr, &dup) || errors.As(runErr, &plan):
		runErr = inputError{runErr} // the launch, not the store, is at fault: exit 2
	case errors.As(runErr, &missing) && len(missing.Gone) == 0:
		runErr = fmt.Errorf("%w (--rendezvous-timeout %v)", runErr, o.dist.rendezvousTO)
	case errors.As(runErr, &skew):
		runErr = fmt.Errorf("%w (--max-skew %v)", runErr, o.dist.maxSkew)
	}
	if res == nil {
		return runErr
	}
	if !wk.Solo() && res.Worker != nil {
		note("worker %v of run %s (%s); the store's clock is %v ahead of this one (±%v)", wk, runID, engine,
			res.Worker.ClockOffset.Round(time.Millisecond), res.Worker.ClockError.Round(time.Millisecond))
	}
	where, uerr := place.upload(context.WithoutCancel(ctx), res)
	if uerr != nil && place.local == "" { // keep the result here rather than lose it
		place.local = place.fallback
		note("the upload failed: keeping the result at %s", place.local)
	}
	err = finish(env, o, res, place.local, runErr, note)
	if where != "" {
		note("result: %s", where)
	}
	return errors.Join(err, uerr)
}

// checkSplit refuses a split across processes that would leave one with
// nothing to do (loadgen.Split), in the flags' words.
func checkSplit(sp workload.Spec, wk distributed.Worker) error {
	if _, err := loadgen.Split(sp, wk); err != nil {
		return inputf("--worker %v: %v\n(-c/--concurrency, --ops and --bytes, and a workload file's concurrency, ops and bytes, are the run's totals, shared by its processes)", wk, err)
	}
	return nil
}

// maxConcurrency is the most workers any stream of sp may run at once
// (an open-loop stream grows to its cap): the connection pool's size.
func maxConcurrency(sp workload.Spec, timeout time.Duration) int {
	n := 1
	for _, st := range sp.Stages {
		for _, s := range st.Streams {
			n = max(n, s.MaxConcurrency())
			if s.Rate != nil {
				n = max(n, loadgen.WorkerCap(*s.Rate, s.MaxConcurrency(), timeout))
			}
		}
	}
	return n
}

// finish writes the result and table and decides the outcome.
func finish(env Env, o *benchOptions, res *result.Run, out string, runErr error, note func(string, ...any)) error {
	if out != "" { // "": the result went to a bucket alone
		if err := result.Write(out, res); err != nil {
			return writeError("write result", out, err)
		}
	}
	if runErr != nil && res.AbortDetail != "" { // what stopped the run, then what failed after
		runErr = fmt.Errorf("run stopped early: %s; then %w", res.AbortDetail, runErr)
	}
	if runErr != nil { // the cause first, then what ran before it
		fmt.Fprintf(env.Stderr, "objbench: the run failed: %v\nobjbench: the steps that ran before it (and cleanup):\n", runErr)
	}
	write := report.WriteTable
	if o.quiet {
		write = func(w io.Writer, r *result.Run) error { // an AI run's own figures are its main table
			report.WriteAIWarnings(w, r)
			return errors.Join(report.WriteRates(w, r), report.WriteAI(w, r))
		}
	}
	if err := write(env.Stdout, res); err != nil {
		return err
	}
	if o.csv != "" {
		if err := writeCSVFile(o.csv, res); err != nil {
			return err
		}
	}
	if o.html != "" {
		if err := writeHTMLFile(o.html, res); err != nil {
			return err
		}
	}
	if o.cosbenchCSV != "" {
		dir, err := cosbenchcsv.Write(o.cosbenchCSV, res)
		if err != nil {
			return fmt.Errorf("--cosbench-csv: %w", err)
		}
		note("COSBench CSVs: %s (and a row in %s)", dir, filepath.Join(o.cosbenchCSV, "run-history.csv"))
		diffs, err := cosbenchcsv.RateDifferences(res)
		if err != nil {
			return fmt.Errorf("--cosbench-csv: %w", err)
		}
		for _, d := range diffs {
			note("COSBench CSV: %s", d)
		}
	}
	if out != "" {
		note("result: %s", out)
	}
	if !res.CleanedUp && o.noCleanup {
		where, cleanCmd := whereRunWrites(res.Target, res.Target.Namespace, res.RunID)
		if cleanCmd != "" {
			note("objects kept under %s (--no-cleanup): %s deletes them", where, cleanCmd)
		} else {
			note("objects kept under %s (--no-cleanup)", where)
		}
	}
	if sp := specDataset(res); sp != "" && !o.deleteDataset {
		note("data set %s kept under %s in its buckets (objbench dataset rm %s deletes it)", sp, res.Target.Namespace, sp)
	}
	failed := strings.Join(res.FailedMainSteps(), ", ")
	switch {
	case runErr != nil:
		return runErr
	case failed != "":
		return fmt.Errorf("every op failed in %s: %s", failed, failedWhy(res, o.grace))
	case len(res.FailedWorks()) > 0:
		return fmt.Errorf("%d work(s) failed the acceptable failure ratio (afr); the later stages ran: %s",
			len(res.FailedWorks()), strings.Join(res.FailedWorks(), "; "))
	case res.Interrupted:
		if res.CleanupNote != "" { // even under -q: objects are left
			fmt.Fprintf(env.Stderr, "objbench: cleanup incomplete: %s\n", res.CleanupNote)
		}
		return errInterrupted
	case res.Aborted == "max-errors":
		return fmt.Errorf("run stopped early: %s (--max-errors %d)", res.Aborted, o.maxErrors)
	case res.Aborted != "":
		return fmt.Errorf("run stopped early: %s", res.AbortDetail)
	case res.CleanupNote != "":
		return fmt.Errorf("cleanup incomplete: %s", res.CleanupNote)
	}
	return nil
}

// specDataset is the data set the run's spec names, if any.
func specDataset(res *result.Run) string {
	var sp struct {
		Dataset string `json:"dataset"`
	}
	_ = json.Unmarshal(res.Spec, &sp)
	return sp.Dataset
}

func writeCSVFile(path string, res *result.Run) error {
	err := atomicfile.Write(path, 0o644, func(w io.Writer) error { return report.WriteCSV(w, res) })
	if err != nil {
		return writeError("--csv", path, err)
	}
	return nil
}

func describeStep(st workload.Stage, i int) string {
	switch {
	case st.Kind == result.KindDelay:
		return fmt.Sprintf("%s: waiting %v", st.Name, st.Delay)
	case st.Kind == result.KindInit:
		return st.Name + ": creating the buckets that are missing"
	case st.Kind == result.KindDispose:
		return st.Name + ": removing the buckets this run created"
	case st.Kind == result.KindCleanup:
		return st.Name + ": deleting what this run wrote"
	case len(st.Streams) == 0:
		return st.Name
	}
	s := st.Streams[0]
	if st.Kind == result.KindPrepare {
		if s.Objects.Index == nil {
			return fmt.Sprintf("prepare: writing %d objects of %s with %d workers", s.Objects.Count,
				report.Bytes(float64(s.Size)), s.MaxConcurrency())
		}
		return fmt.Sprintf("%s: writing objects %s of %s with %d workers", st.Name, s.Objects.Index, s.Sizes().SizeString(), s.MaxConcurrency())
	}
	line := fmt.Sprintf("%s: step %d/%d, %s with %d workers", st.Name, i+1, st.Steps(), s.Name, s.ConcurrencyAt(i))
	if r := s.At(i).Rate; r != nil && (s.Sweep == nil || len(s.Sweep.Rates) < 2) {
		line += " at " + r.String() // a swept rate is named by the step label
	}
	switch n := len(st.Streams) - 1; {
	case n == 1:
		line += " (and 1 more stream)"
	case n > 1:
		line += fmt.Sprintf(" (and %d more streams)", n)
	}
	if l := st.StepLabel(i); l != "" {
		line += ", " + l
	}
	return line
}

func notes(env Env, quiet bool) func(string, ...any) {
	return func(format string, a ...any) {
		if !quiet {
			fmt.Fprintf(env.Stderr, "objbench: "+format+"\n", a...)
		}
	}
}

// closeLive stops the view once pages that got the final event have
// disconnected (within 10 s), so a script never hangs on it.
func closeLive(ctx context.Context, v *live.View) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	_ = v.Close(ctx) // the run's outcome does not depend on its viewers
}

// warnings prints what -q must not hide.
func warnings(env Env) func(string, ...any) {
	return func(format string, a ...any) {
		fmt.Fprintf(env.Stderr, "objbench: warning: "+format+"\n", a...)
	}
}

// outputs are the files the run writes, checked before it starts.
func (o *benchOptions) outputs() []output {
	return []output{{flag: "--out", path: o.out}, {flag: "--csv", path: o.csv}, {flag: "--html", path: o.html},
		{flag: "--op-log", path: o.opLog}, {flag: "--cosbench-csv", path: o.cosbenchCSV, dir: true},
		{flag: "--cpuprofile", path: o.cpuProfile}, {flag: "--memprofile", path: o.memProfile}}
}

// heapProfileAtMainEnd writes a heap profile when the first step after a
// main step begins: the main step's workers are then still allocated.
func heapProfileAtMainEnd(path string) func(workload.Stage) {
	inMain, done := false, false
	return func(st workload.Stage) {
		if inMain && st.Kind != workload.KindMain && !done {
			done = true
			_ = atomicfile.Write(path, 0o644, pprof.WriteHeapProfile)
		}
		inMain = st.Kind == workload.KindMain
	}
}

func startCPUProfile(path string) (stop func(), err error) {
	f, err := atomicfile.Create(path, 0o644)
	if err != nil {
		return nil, writeError("--cpuprofile", path, err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Abort()
		return nil, fmt.Errorf("--cpuprofile %s: %w", path, err)
	}
	return func() { pprof.StopCPUProfile(); _ = f.Commit() }, nil
}
