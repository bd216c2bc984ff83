package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/objbench/objbench/distributed"
	"github.com/objbench/objbench/internal/cputime"
	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/payload"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/workload"
)

// DefaultGrace is how long in-flight ops may finish after a stream stops
// issuing, unless Config.Grace says otherwise.
const DefaultGrace = 10 * time.Second

// Config is one run.
type Config struct {
	Store storage.Store
	Spec  workload.Spec
	// Namespace prefixes every key the run writes ("objbench/<run-id>/");
	// cleanup deletes only what it lists under it.
	Namespace string
	Block     *payload.Block
	Seed      uint64
	// Grace is how long in-flight ops may run after a stream stops issuing
	// (deadline or interrupt) before they are cancelled.
	Grace time.Duration
	// CleanupTimeout bounds cleanup, which still runs after an interrupt:
	// then in-flight ops get Grace, and cleanup and dispose another Grace,
	// after which they are cut short (what is left is noted).
	CleanupTimeout time.Duration
	// MaxErrors stops the run when this many ops have failed (0: never).
	MaxErrors int64
	// NoCleanup skips cleanup stages, leaving the objects for a later run.
	NoCleanup bool
	// Dataset makes the namespace a data set kept across runs (Spec.Dataset):
	// cleanup and dispose stages do not run, and a key pool no stage of
	// this run prepares is filled by listing what the data set holds.
	// DeleteDataset instead runs the cleanup stages though this run wrote
	// nothing: they delete the data set's objects (objbench dataset rm).
	Dataset, DeleteDataset bool
	// BareKeys is COSBench's key layout (Spec.BareKeys, barekeys.go): the
	// workload's numbered objects are named without Namespace (which
	// still holds what else the run keeps: its workers' markers), and the
	// run's own record decides what it may overwrite and delete. One
	// process only.
	BareKeys bool
	// Worker is this process's part of a run split across processes
	// (rank r of N): it runs its share of every stream's workers, rate
	// and bounds, writes and deletes only keys of its own, and prepares
	// its part of each key space; the zero value runs everything.
	Worker distributed.Worker
	// BeforeStep, if set, is called before each step (of every stage,
	// cleanup and dispose included) and may block, to start the step with
	// the other workers; an error stops the run (cleanup still runs).
	BeforeStep func(ctx context.Context, st workload.Stage, step int) error
	// Stopping, if set, is called once when the run will start no more
	// steps but cleanup and dispose (a step failed, the run was aborted
	// or interrupted), with a word or two of why: the other workers of a
	// split run then stop waiting for this one.
	Stopping func(why string)
	// Adopted, if set, is asked at each cleanup and dispose step for the
	// ranks (of a split run) whose objects this worker deletes besides
	// its own: those of workers that died. Rank 0's buckets are disposed
	// of by whoever adopts it.
	Adopted func() []int
	// OpenLoopHorizon is how long an op may take (the request timeout):
	// an open-loop stream without max_workers grows to its peak rate times
	// this many workers (WorkerCap). 0: DefaultOpenLoopHorizon.
	OpenLoopHorizon time.Duration
	// Repeat runs each main stage's sweep this many times over (each
	// step's result numbered by its Repetition); 0 or 1: once.
	Repeat int
	// OnStep, if set, is called before each step with its stage and index.
	OnStep func(stage workload.Stage, step int)
	// OpenBucket opens a store on another bucket, for key spaces that name
	// buckets: of the target, or of st when a stream has its own storage
	// (COSBench's per-work <storage>). The run opens each bucket once and
	// never closes the stores: the caller owns them. nil: a workload that
	// names buckets fails.
	OpenBucket func(ctx context.Context, st *workload.Storage, bucket string) (storage.Store, error)
	// StepStarted, if set, is called with the instant each step's clock
	// starts (second 0 of its records), so what is measured beside the run
	// (the system sampler) can share the step's seconds.
	StepStarted func(start time.Time)
	// StepDone, if set, is called with each step of a stage that is not
	// cleanup or dispose once it is recorded (a script's figures in it).
	StepDone func(step result.Step)
	// OnSecond, if set, is called with each second of each stream once it
	// is final, while the step runs (for a live progress display), and
	// with the seconds that become final when the stream stops: every
	// second once, in order. It is called from the streams' goroutines,
	// concurrently for several streams, and must return quickly.
	OnSecond func(stream string, sec result.Second)
	// OpLog, if set, receives every op the run issues (--op-log).
	OpLog OpLogger
	// Replay, if set, replaces one stream of the workload by a trace.
	Replay *Replay
	// Scripts, if set, gives the script that drives stream sp of stage
	// st at step i (script.go), or nil for a stream run as its spec says.
	// It is asked once per stream and step, before the step starts.
	Scripts func(st workload.Stage, i int, sp workload.Stream) (Script, error)
}

// Outcome is what a run did.
type Outcome struct {
	Steps       []result.Step
	Interrupted bool
	Aborted     string // "max-errors" or "error-ratio"
	AbortDetail string
	CleanedUp   bool
	// CleanupNote says what cleanup or dispose could not remove, and why.
	CleanupNote string
}

type runState struct {
	cfg          Config
	pools        map[string]*keyPool
	stores       map[string]storage.Store // bucket stores by storeKey
	storeOrder   []string
	created      map[string]bool // buckets this run created, by storeKey
	removed      map[string]bool // and then removed
	blocks       map[workload.Data]*payload.Block
	ratios       map[string]workload.Data // how each space's data was made (compressibility, pattern)
	written      map[string][2]int64      // the smallest and largest size each space was written with
	maxErrors    int64
	errors       atomic.Int64
	wroteAny     atomic.Bool    // a write of this run succeeded: there is something to clean up
	drivers      map[string]int // COSBench drivers' ranks (workload.Spec.DriverRanks)
	watch        *errorWatch    // the running step's failure policy, if any
	mu           sync.Mutex
	abortWhy     string
	abortDetail  string
	cleanupNotes []string // what the run could not clean up
	abortAll     context.CancelFunc
	book         objectBook // ETags and versions this run's writes returned, when some op needs them
	versioned    bool       // some stream works in a versioned bucket
	// versionedStores are the stores known to keep versions.
	versionedStores map[storage.Store]bool
	// owned is COSBench's key layout's record of what the run wrote, by
	// bucket and naming (barekeys.go); ownedOrder keeps them in order.
	owned      map[string]*ownNumbers
	ownedOrder []string
	stepNotes  []string    // notes for the step being built (cleanup)
	closers    []io.Closer // corpora read by prepare stages, closed when the run ends
	// bucketNames names the buckets of stores opened for key spaces, for
	// the op log; logStep is the step running, as the op log names it.
	// Both change only between steps.
	bucketNames map[storage.Store]string
	logStep     string
	adopted     []int // dead workers' ranks this one cleans up for (Config.Adopted)
}

// abort stops the run (the first reason wins): no more steps but cleanup.
func (r *runState) abort(why, detail string) {
	r.mu.Lock()
	if r.abortWhy == "" {
		r.abortWhy, r.abortDetail = why, detail
	}
	r.mu.Unlock()
	r.abortAll()
}

func (r *runState) aborted() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.abortWhy
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
	r := &runState{cfg: cfg, pools: map[string]*keyPool{}, stores: map[string]storage.Store{}, created: map[string]bool{}, removed: map[string]bool{},
		blocks: map[workload.Data]*payload.Block{}, ratios: map[string]workload.Data{}, written: map[string][2]int64{}, maxErrors: cfg.MaxErrors, abortAll: abortAll,
		drivers: cfg.Spec.DriverRanks(), bucketNames: map[storage.Store]string{}, owned: map[string]*ownNumbers{}}
	r.book.wanted = wantsBook(cfg.Spec)
	r.versioned, r.versionedStores = cfg.Spec.Versioned(), map[storage.Store]bool{}
	if err := r.preflight(); err != nil {
		return nil, err
	}
	defer r.closeAll()
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
	r.mu.Lock()
	out.Aborted, out.AbortDetail = r.abortWhy, r.abortDetail
	if len(r.cleanupNotes) > 0 {
		out.CleanedUp, out.CleanupNote = false, strings.Join(r.cleanupNotes, "; ")
	}
	r.mu.Unlock()
	return out, failed
}

// stopWord says in a word or two why a run stops before its end.
func stopWord(ctx context.Context, r *runState, failed error) string {
	switch {
	case ctx.Err() != nil:
		return "interrupted"
	case r.aborted() != "":
		return "aborted " + r.aborted()
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
			r.adopted = r.cfg.Adopted()
		}
		var step result.Step
		var err error
		switch {
		case st.Kind == result.KindDispose && r.cfg.Worker.Rank > 0 && !r.adopts(0): // rank 0 disposes, or who cleans up for it
			step = result.Step{Stage: st.Name, Kind: string(st.Kind), Start: time.Now(), Notes: []string{"buckets are disposed of by worker 0"}}
		case st.Kind == result.KindDispose:
			step, err = r.dispose(cctx, st)
		case !r.wroteAny.Load() && r.cfg.Worker.Solo() && !r.cfg.DeleteDataset:
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
			r.leftover(why)
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

// step runs every stream of stage st at sweep index i, side by side, under
// the stage's failure policy.
func (r *runState) step(ctx context.Context, st workload.Stage, i int) (result.Step, error) {
	var runs []*streamRun
	var specs []workload.Stream
	var scripts []Script
	for _, sp := range st.Streams {
		sc, err := r.scriptOf(st, i, sp)
		if err != nil {
			return result.Step{}, err
		}
		var s *streamRun
		if sc != nil {
			s, err = r.scriptStream(sp, i, sc)
			scripts = append(scripts, sc)
		} else {
			s, err = r.newStream(ctx, st.Kind, sp, i)
		}
		if err != nil {
			return result.Step{}, err
		}
		if s != nil {
			runs, specs = append(runs, s), append(specs, sp)
		}
	}
	r.watch = newErrorWatch(st)
	defer func() { r.watch = nil }()
	res, err := r.measure(ctx, st, i, runs)
	for _, sc := range scripts {
		sc.Record(&res)
	}
	res.Sweep = st.StepLabel(i)
	res.Notes = append(res.Notes, rampNotes(runs)...)
	res.Notes = append(res.Notes, hashNotes(runs)...)
	if err == nil {
		res.FailedWorks = judgeAtEnd(st, specs, res.Streams)
	}
	if w := r.watch; w != nil && err == nil {
		w.final(r)
		if why := r.aborted(); why == "error-ratio" {
			r.mu.Lock()
			res.Notes = append(res.Notes, "workflow stopped: "+r.abortDetail)
			r.mu.Unlock()
		}
	}
	return res, err
}

// measure starts the streams on one clock and collects their results.
func (r *runState) measure(ctx context.Context, st workload.Stage, i int, runs []*streamRun) (result.Step, error) {
	res := result.Step{Stage: st.Name, Kind: string(st.Kind), Step: i, Start: time.Now()}
	if r.cfg.StepStarted != nil {
		r.cfg.StepStarted(res.Start)
	}
	u0, s0 := cputime.Process()
	d0, q0 := r.connStats()
	c0, _ := r.connections()
	results := make([]result.Stream, len(runs))
	errs := make([]error, len(runs))
	var wg sync.WaitGroup
	for j, s := range runs {
		s.series = metrics.NewSeries(res.Start)
		wg.Go(func() { results[j], errs[j] = s.execute(ctx, r.cfg.Grace) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return res, err
	}
	for _, s := range runs {
		res.Notes = append(res.Notes, s.refusals.notes(s.name)...)
	}
	if slices.ContainsFunc(st.Streams, func(s workload.Stream) bool { return s.SyncAtEnd }) && st.Kind != result.KindCleanup {
		t0 := time.Now()
		if err := r.syncStores(ctx); err != nil {
			return res, err
		}
		res.Synced = time.Since(t0)
		// What was written is stored only once the sync returns: the
		// window, and the rates, end there.
		for j := range results {
			w := results[j].Window
			w.End = time.Since(res.Start).Seconds()
			if err := results[j].SetWindow(w); err != nil {
				return res, err
			}
		}
	}
	res.Elapsed = time.Since(res.Start)
	res.Streams = results
	res.NameStreams()
	u1, s1 := cputime.Process()
	d1, q1 := r.connStats()
	res.CPUUser, res.CPUSys, res.ConnsDialed, res.Requests = u1-u0, s1-s0, d1-d0, q1-q0
	res.Connections = r.connectionsSince(c0)
	return res, nil
}

// syncStores flushes the stores that can be (file systems) at the end of a
// step whose streams sync at end.
func (r *runState) syncStores(ctx context.Context) error {
	if s, ok := r.cfg.Store.(storage.Syncer); ok {
		return s.Sync(ctx)
	}
	return nil
}

func connStats(s storage.Store) (dialed, requests uint64) {
	if c, ok := s.(storage.ConnCounter); ok {
		return c.ConnStats()
	}
	return 0, 0
}

// newStream builds the run of stream sp in step i; nil means nothing to do.
func (r *runState) newStream(ctx context.Context, kind workload.StageKind, sp workload.Stream, i int) (*streamRun, error) {
	if kind == workload.KindMain {
		sp = sp.At(i)
	}
	block, err := r.block(sp.Data)
	if err != nil {
		return nil, err
	}
	w := r.cfg.Worker
	sh := splitShare(workload.Stage{Kind: kind}, sp, i, w, r.drivers)
	if sp.Driver != "" && !w.Solo() {
		// A COSBench work bound to a driver runs whole on that driver's rank.
		if r.drivers[sp.Driver] != w.Rank {
			return nil, nil
		}
		w = distributed.Worker{}
	}
	bounds := sp.Bounds
	var own workerLimits
	workers := sh.Workers
	if bounds.PerWorker { // each worker its part of the whole stream's (perworker.go)
		own.ops, own.bytes = bounds.WorkerPart(sh.AllWorkers)
		bounds.Ops, bounds.Bytes = 0, 0
	} else {
		bounds.Ops, bounds.Bytes = sh.Ops, sh.Bytes
		if kind == workload.KindMain && ((sp.Bounds.Ops > 0 && bounds.Ops == 0) || (sp.Bounds.Bytes > 0 && bounds.Bytes == 0)) {
			return nil, nil // this worker's share of the stream is nothing (Split refuses such a run)
		}
	}
	s := &streamRun{name: sp.Name, run: r, bounds: bounds, own: own, workers: workers,
		work: streamWork{block: block, seed: r.cfg.Seed + uint64(i), sizes: sp.Sizes(), sizeSeq: new(atomic.Uint64), sizeSeed: r.cfg.Seed,
			rangeSize: sp.RangeSize, partSize: sp.PartSize, verify: sp.Data.Verify, hashCheck: sp.Data.HashCheck, fsync: sp.Fsync}}
	if s.work.partSize <= 0 {
		s.work.partSize = workload.DefaultPartSize
	}
	if s.work.s3, err = resolveS3(sp.S3); err != nil {
		return nil, fmt.Errorf("stream %s: %w", sp.Name, err)
	}
	if replayOf(r, kind, sp.Name) {
		return r.replayStream(s, kind)
	}
	if sp.Rate != nil && kind == workload.KindMain {
		// The schedule is the whole run's; this worker serves slots r, r+N...
		var plan Schedule = NewRatePacer(*sp.Rate, r.cfg.Seed+uint64(i))
		if !w.Solo() {
			plan = shareOf{plan, w}
		}
		share := *sp.Rate
		share.PerSec, share.To, share.MaxWorkers = share.PerSec/float64(w.N()), share.To/float64(w.N()), int(w.Share(int64(share.MaxWorkers)))
		s.sched = newSchedule(plan, WorkerCap(share, max(workers, 1), r.cfg.OpenLoopHorizon), r.cfg.Seed+uint64(i))
		s.workers = min(max(s.workers, 1), s.sched.maxWorkers)
	} else if workers == 0 {
		return nil, nil // fewer workers than processes: this one has none
	}
	if kind == workload.KindPrepare {
		return r.prepareStream(ctx, s, sp)
	}
	if sp.Bounds.Duration > 0 && (sp.Rampup > 0 || sp.Rampdown > 0) {
		s.counted = rampedSpan(sp.Bounds.Duration, sp.Rampup, sp.Rampdown)
	}
	return r.mainStream(ctx, s, sp)
}
