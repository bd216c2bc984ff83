package loadgen

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/payload"
	"github.com/objbench/objbench/workload"
)

// streamRun is one stream during one step.
type streamRun struct {
	name      string
	block     *payload.Block
	seed      uint64
	series    *metrics.Series
	pacer     Pacer
	mix       mix
	ops       []*opDef  // the mix's ops (main stages)
	fixed     fixedWork // prepare/cleanup: each task of a list once
	sizes     workload.Selector
	sizeSeq   atomic.Uint64
	getRange  int64 // GET reads ranges of this size (flags' --range-size)
	rangeSize int64 // RANGE-GET reads ranges of this size
	partSize  int64
	verify    bool
	fsync     bool
	bounds    workload.Bounds
	workers   int
	run       *runState

	// open: the pacer is a schedule (not ClosedLoop); its slots start at
	// origin, when the first worker is ready, so a slow start of the
	// workers does not count as dropped slots.
	open       bool
	originOnce sync.Once
	origin     time.Time
	lastSlot   atomic.Int64 // open loop: the latest claimed slot, ns after origin
	liveNext   int64        // the first second not yet passed to Config.OnSecond

	opCtx          context.Context
	issued, cursor atomic.Int64
	moved          atomic.Int64

	stopOnce  sync.Once
	stopCause string
	stop      context.CancelFunc
}

// fixedWork is a list of tasks run once each, n of them, made on demand.
type fixedWork struct {
	n  int64
	at func(w *worker, i int64) task
}

// scheduleOrigin is the instant the pacer's schedule counts from.
func (s *streamRun) scheduleOrigin() time.Time {
	s.originOnce.Do(func() { s.origin = time.Now() })
	return s.origin
}

// noteSlot records that the slot due at offset (after origin) was claimed.
func (s *streamRun) noteSlot(offset time.Duration) {
	for {
		last := s.lastSlot.Load()
		if int64(offset) <= last || s.lastSlot.CompareAndSwap(last, int64(offset)) {
			return
		}
	}
}

// scheduleWindow is an open-loop stream's window: from its first slot to its
// last. The closed-loop rule (every worker has done an op .. the first
// worker stopped) would shrink to a sliver when many workers share the
// slots; open loop, the schedule is the load.
func (s *streamRun) scheduleWindow(fallback metrics.Window) metrics.Window {
	start := s.scheduleOrigin().Sub(s.series.Start()).Seconds()
	end := start + time.Duration(s.lastSlot.Load()).Seconds()
	if end <= start {
		return fallback
	}
	return metrics.Window{Start: start, End: end}
}

// scheduleEnded: a worker found no slot left. In closed loop the stream
// stops; open loop, workers still waiting for earlier slots issue them
// first, each returning when it finds none left.
func (s *streamRun) scheduleEnded(cause string) {
	if !s.open {
		s.finish(cause)
		return
	}
	s.stopOnce.Do(func() { s.stopCause = cause })
}

// finish records why the stream stopped (first cause wins) and stops it.
func (s *streamRun) finish(cause string) {
	s.stopOnce.Do(func() { s.stopCause = cause })
	s.stop()
}

// count notes one finished op for the run's error limits.
func (s *streamRun) count(failed bool) {
	if failed && s.run.maxErrors > 0 && s.run.errors.Add(1) >= s.run.maxErrors {
		s.run.abort("max-errors", fmt.Sprintf("%d ops failed (--max-errors %d)", s.run.maxErrors, s.run.maxErrors))
	}
	if w := s.run.watch; w != nil {
		w.observe(s.run, failed)
	}
}

// StreamResult is what one stream did in one step.
type StreamResult struct {
	Name        string            `json:"name"`
	Concurrency int               `json:"concurrency"`
	StoppedBy   string            `json:"stopped_by"`
	Seconds     []metrics.Second  `json:"seconds"`
	Window      metrics.Window    `json:"window"`
	Totals      []metrics.OpTotal `json:"totals"`
}

// execute runs the stream's workers until they stop, sweeping the series
// each second, and summarizes. stop ends issuing; in-flight ops then get
// grace before their context is cancelled.
func (s *streamRun) execute(stop context.Context, grace time.Duration) (StreamResult, error) {
	stopCtx, cancel := context.WithCancel(stop)
	s.stop = cancel
	defer cancel()
	if s.bounds.Duration > 0 {
		var c context.CancelFunc
		stopCtx, c = context.WithTimeout(stopCtx, s.bounds.Duration)
		defer c()
	}
	opCtx, hardStop := context.WithCancel(context.WithoutCancel(stop))
	defer hardStop()
	s.opCtx = opCtx
	graceTimer := context.AfterFunc(stopCtx, func() { time.AfterFunc(grace, hardStop) })
	defer graceTimer()

	workersDone := make(chan struct{})
	var g errgroup.Group
	g.Go(func() error { s.sweepEachSecond(workersDone); return nil })
	var wg errgroup.Group
	for i := range s.workers {
		w := newWorker(s, i)
		wg.Go(func() error { w.loop(stopCtx); return nil })
	}
	err := wg.Wait()
	close(workersDone)
	if gerr := g.Wait(); err == nil {
		err = gerr
	}
	if err != nil {
		return StreamResult{}, err
	}
	return s.result(stopCtx)
}

func (s *streamRun) sweepEachSecond(done <-chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case now := <-t.C:
			s.series.Sweep(now)
			if on := s.run.cfg.OnSecond; on != nil {
				for _, sec := range s.series.Finalized(s.liveNext) {
					on(s.name, sec)
					s.liveNext = sec.T + 1
				}
			}
		case <-done:
			return
		}
	}
}

func (s *streamRun) result(stopCtx context.Context) (StreamResult, error) {
	secs, win := s.series.Finish()
	if on := s.run.cfg.OnSecond; on != nil { // the step's last seconds, final only now
		for _, sec := range secs[min(s.liveNext, int64(len(secs))):] {
			on(s.name, sec)
		}
	}
	if s.open {
		win = s.scheduleWindow(win)
	}
	totals, err := metrics.Summarize(secs, win)
	if err != nil {
		return StreamResult{}, err
	}
	cause := s.stopCause
	if cause == "" {
		switch {
		case s.run.aborted() != "":
			cause = s.run.aborted()
		case context.Cause(stopCtx) == context.DeadlineExceeded:
			cause = "duration"
		default:
			cause = "interrupted"
		}
	}
	return StreamResult{Name: s.name, Concurrency: s.workers, StoppedBy: cause,
		Seconds: secs, Window: win, Totals: totals}, nil
}
