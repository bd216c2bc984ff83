package loadgen

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/payload"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/workload"
)

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
	// CleanupTimeout bounds cleanup, which still runs after an interrupt.
	CleanupTimeout time.Duration
	// MaxErrors stops the run when this many ops have failed (0: never).
	MaxErrors int64
	// NoCleanup skips cleanup stages, leaving the objects for a later run.
	NoCleanup bool
	// NewPacer gives each stream its pacer; nil means closed loop.
	NewPacer func(workload.Stream) Pacer
	// OnStep, if set, is called before each step with its stage and index.
	OnStep func(stage workload.Stage, step int)
}

// StepResult is one step: a stage with one sweep value.
type StepResult struct {
	Stage   string             `json:"stage"`
	Kind    workload.StageKind `json:"kind"`
	Step    int                `json:"step"`
	Start   time.Time          `json:"start"`
	Elapsed time.Duration      `json:"elapsed_ns"`
	Streams []StreamResult     `json:"streams"`
	// The process's CPU time during the step and, for network stores,
	// connections dialed vs requests sent.
	CPUUser     time.Duration `json:"cpu_user_ns"`
	CPUSys      time.Duration `json:"cpu_sys_ns"`
	ConnsDialed uint64        `json:"conns_dialed"`
	Requests    uint64        `json:"requests"`
}

// Outcome is what a run did.
type Outcome struct {
	Steps       []StepResult `json:"steps"`
	Interrupted bool         `json:"interrupted"`
	Aborted     string       `json:"aborted,omitempty"` // e.g. "max-errors"
	CleanedUp   bool         `json:"cleaned_up"`
}

type runState struct {
	cfg       Config
	pools     map[string]*keyPool
	maxErrors int64
	errors    atomic.Int64
	mu        sync.Mutex
	abortWhy  string
	abortAll  context.CancelFunc
}

func (r *runState) abort(why string) {
	r.mu.Lock()
	if r.abortWhy == "" {
		r.abortWhy = why
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
// non-cleanup stages and still cleans up. The outcome holds every step that
// ran, also when an error is returned.
func Run(ctx context.Context, cfg Config) (*Outcome, error) {
	if errs := cfg.Spec.Validate(); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if cfg.Grace <= 0 {
		cfg.Grace = 10 * time.Second
	}
	if cfg.CleanupTimeout <= 0 {
		cfg.CleanupTimeout = 5 * time.Minute
	}
	runCtx, abortAll := context.WithCancel(ctx)
	defer abortAll()
	r := &runState{cfg: cfg, pools: map[string]*keyPool{}, maxErrors: cfg.MaxErrors, abortAll: abortAll}
	out := &Outcome{}
	for _, st := range cfg.Spec.Stages {
		if st.Kind == workload.KindCleanup {
			if cfg.NoCleanup {
				continue
			}
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.CleanupTimeout)
			step, err := r.cleanup(cctx, st)
			cancel()
			out.Steps = append(out.Steps, step)
			if err != nil {
				return out, err
			}
			out.CleanedUp = true
			continue
		}
		for i := 0; i < st.Steps() && runCtx.Err() == nil; i++ {
			if cfg.OnStep != nil {
				cfg.OnStep(st, i)
			}
			step, err := r.step(runCtx, st, i)
			if err != nil {
				return out, err
			}
			out.Steps = append(out.Steps, step)
		}
	}
	out.Interrupted = ctx.Err() != nil
	out.Aborted = r.aborted()
	return out, nil
}

// step runs every stream of stage st at sweep index i, side by side.
func (r *runState) step(ctx context.Context, st workload.Stage, i int) (StepResult, error) {
	var runs []*streamRun
	for _, sp := range st.Streams {
		s, err := r.newStream(ctx, st.Kind, sp, i)
		if err != nil {
			return StepResult{}, err
		}
		if s != nil {
			runs = append(runs, s)
		}
	}
	return r.measure(ctx, st, i, runs)
}

// measure starts the streams on one clock and collects their results.
func (r *runState) measure(ctx context.Context, st workload.Stage, i int, runs []*streamRun) (StepResult, error) {
	res := StepResult{Stage: st.Name, Kind: st.Kind, Step: i, Start: time.Now()}
	u0, s0 := cpuTimes()
	d0, q0 := connStats(r.cfg.Store)
	results := make([]StreamResult, len(runs))
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
	res.Elapsed = time.Since(res.Start)
	res.Streams = results
	u1, s1 := cpuTimes()
	d1, q1 := connStats(r.cfg.Store)
	res.CPUUser, res.CPUSys, res.ConnsDialed, res.Requests = u1-u0, s1-s0, d1-d0, q1-q0
	return res, nil
}

func connStats(s storage.Store) (dialed, requests uint64) {
	if c, ok := s.(storage.ConnCounter); ok {
		return c.ConnStats()
	}
	return 0, 0
}

// newStream builds the run of stream sp in step i; nil means nothing to do.
func (r *runState) newStream(ctx context.Context, kind workload.StageKind, sp workload.Stream, i int) (*streamRun, error) {
	pool, err := r.pool(ctx, sp)
	if err != nil {
		return nil, err
	}
	s := &streamRun{
		name: sp.Name, store: r.cfg.Store, block: r.cfg.Block, seed: r.cfg.Seed + uint64(i),
		pacer: ClosedLoop{}, pool: pool, size: sp.Size, rangeSize: sp.RangeSize, fsync: sp.Fsync,
		bounds: sp.Bounds, workers: sp.ConcurrencyAt(i), run: r,
	}
	if r.cfg.NewPacer != nil {
		s.pacer = r.cfg.NewPacer(sp)
	}
	if kind == workload.KindPrepare {
		if sp.Objects.Existing || sp.Objects.Count == 0 {
			return nil, nil
		}
		s.listed, s.fixed, s.fixedOp = true, pool.plan(sp.Objects.Count), metrics.OpPut
		s.bounds = workload.Bounds{}
		s.workers = min(sp.MaxConcurrency(), sp.Objects.Count)
		return s, nil
	}
	if s.mix, err = newMix(sp.Mix); err != nil {
		return nil, err
	}
	pool.mutable = pool.mutable || sp.Writes()
	if pool.count() == 0 && !s.mix.has(metrics.OpPut) {
		return nil, fmt.Errorf("stream %s reads objects under %q, but none exist there: prepare them first", sp.Name, pool.prefix)
	}
	return s, nil
}

// pool returns the key pool of sp's key space, listing existing objects the
// first time one is used.
func (r *runState) pool(ctx context.Context, sp workload.Stream) (*keyPool, error) {
	prefix := r.cfg.Namespace + sp.Objects.Prefix
	if sp.Objects.Existing {
		prefix = sp.Objects.Prefix
	}
	if p, ok := r.pools[prefix]; ok {
		return p, nil
	}
	p := newKeyPool(prefix, sp.Size)
	if sp.Objects.Existing {
		p.sizes = []int64{}
		err := r.cfg.Store.List(ctx, prefix, func(o storage.ObjectInfo) error {
			p.live, p.sizes = append(p.live, o.Key), append(p.sizes, o.Size)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("list existing objects under %q: %w", prefix, err)
		}
		if len(p.live) == 0 {
			return nil, fmt.Errorf("no objects under %q to read", prefix)
		}
	}
	r.pools[prefix] = p
	return p, nil
}

// cleanup deletes every object under the run's namespace, and nothing else.
func (r *runState) cleanup(ctx context.Context, st workload.Stage) (StepResult, error) {
	ns := r.cfg.Namespace
	if ns == "" || !strings.HasSuffix(ns, "/") {
		return StepResult{}, fmt.Errorf("refusing to clean up without a run namespace ending in '/' (got %q)", ns)
	}
	var keys []string
	if err := r.cfg.Store.List(ctx, ns, func(o storage.ObjectInfo) error {
		keys = append(keys, o.Key)
		return nil
	}); err != nil {
		return StepResult{}, fmt.Errorf("cleanup: list %q: %w", ns, err)
	}
	if len(keys) == 0 {
		return StepResult{Stage: st.Name, Kind: st.Kind, Start: time.Now()}, nil
	}
	conc := 8
	if len(st.Streams) > 0 {
		conc = st.Streams[0].MaxConcurrency()
	}
	s := &streamRun{name: "cleanup", store: r.cfg.Store, block: r.cfg.Block, pacer: ClosedLoop{},
		listed: true, fixed: keys, fixedOp: metrics.OpDelete, workers: max(1, min(conc, len(keys))), run: r}
	return r.measure(ctx, st, 0, []*streamRun{s})
}
