package loadgen

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/objbench/objbench/distributed"
	"github.com/objbench/objbench/internal/cputime"
	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/workload"
)

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
	r.policy.stepStarts(st)
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
	if note := r.policy.stepEnds(err == nil); note != "" {
		res.Notes = append(res.Notes, note)
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
	c0, _ := r.stores.connections()
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
		if err := r.stores.syncTarget(ctx); err != nil {
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
	res.CPUUser, res.CPUSys = u1-u0, s1-s0
	if c := r.stores.connectionsSince(c0); c != nil {
		res.Connections, res.ConnsDialed, res.Requests = c, c.Opened, c.Requests
	}
	return res, nil
}

// newStream builds the run of stream sp in step i; nil means nothing to do.
func (r *runState) newStream(ctx context.Context, kind workload.StageKind, sp workload.Stream, i int) (*streamRun, error) {
	if kind == workload.KindMain {
		sp = sp.At(i)
	}
	block, err := r.data.block(sp.Data)
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
		r.openLoop(s, *sp.Rate, w, i)
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

// openLoop gives stream s of step i its schedule at rate: the whole
// run's, of which worker w serves slots r, r+N...
func (r *runState) openLoop(s *streamRun, rate workload.Rate, w distributed.Worker, i int) {
	var plan Schedule = NewRatePacer(rate, r.cfg.Seed+uint64(i))
	if !w.Solo() {
		plan = shareOf{plan, w}
	}
	share := rate
	share.PerSec, share.To, share.MaxWorkers = share.PerSec/float64(w.N()), share.To/float64(w.N()), int(w.Share(int64(share.MaxWorkers)))
	s.sched = newSchedule(plan, WorkerCap(share, max(s.workers, 1), r.cfg.OpenLoopHorizon), r.cfg.Seed+uint64(i))
	s.workers = min(max(s.workers, 1), s.sched.maxWorkers)
}
