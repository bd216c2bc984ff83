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
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/workload"
)

// streamRun is one stream during one step: what its workers do (work),
// how far they may go (bounds), how they are paced (closed loop, or an
// open-loop schedule), and how the stream ended.
type streamRun struct {
	name    string
	run     *runState
	work    streamWork
	bounds  workload.Bounds
	own     workerLimits // each worker's own part of the bounds (perworker.go)
	workers int          // closed loop: the workers; open loop: those started at once
	sched   *schedule    // open loop; nil: closed loop
	replay  *replayRun   // the stream replays a trace (Config.Replay)
	script  Script       // the stream is scripted (Config.Scripts)
	series  *metrics.Series

	opCtx                 context.Context // ops run under it: it outlives the stop by the grace
	issued, cursor, moved atomic.Int64
	ownStopped            atomic.Int64 // workers stopped at their own limits
	untrailed             atomic.Int64 // objects read with hashCheck that had no trailer
	ratesMu               sync.Mutex
	rates                 streamRates // COSBench's, as the workers stop (cosbenchrate.go)
	end                   stopper
	liveNext              int64 // the first second not yet passed to Config.OnSecond

	stopCtx context.Context // ends when the stream stops issuing
	outages outageLog
	// refusals are the periods every op was refused for good (refused.go).
	refusals refusalLog
	// counted, when set, is the part [from, to) of the step whose ops the
	// result keeps, COSBench's rampup and rampdown left out: an op counts
	// when it started at or after from and before to, and ended after
	// from and by to (countsOp).
	counted *[2]time.Duration
	runners *runners // the workers' GETs' deep parts (runners.go)
}

// rampedSpan is the part of a stream of d in all whose ops count,
// COSBench's rampup and rampdown left out; nil: all of it.
func rampedSpan(d, rampup, rampdown time.Duration) *[2]time.Duration {
	if rampup <= 0 && rampdown <= 0 {
		return nil
	}
	return &[2]time.Duration{rampup, max(d-rampdown, rampup)}
}

// countsOp reports whether the op just done counts in the result: an op
// that started at or after the rampup's end and before the runtime's end,
// and ended after the rampup's end and by the runtime's end, as COSBench
// counts a sample (dev/cosbench-driver/src/com/intel/cosbench/driver/
// agent/WorkAgent.java, onSampleCreated: lbegin >= begin && lbegin < end
// && curr > begin && curr <= end). Its clock starts with the stream's, as
// COSBench's starts with each worker's (they start together).
func (s *streamRun) countsOp(r *metrics.Result) bool {
	c := s.counted
	if c == nil {
		return true
	}
	start, end := r.Start.Sub(s.series.Start()), r.End.Sub(s.series.Start())
	return start >= c[0] && start < c[1] && end > c[0] && end <= c[1]
}

// rampNotes say which streams left their ramps out.
func rampNotes(runs []*streamRun) []string {
	var out []string
	for _, s := range runs {
		if c := s.counted; c != nil {
			out = append(out, fmt.Sprintf("stream %s: only the ops that started at or after %v and ended by %v into the step are counted: its rampup and rampdown are left out, as COSBench does", s.name, c[0], c[1]))
		}
	}
	return out
}

// keeps reports whether second t of the step may hold ops that count.
func (s *streamRun) keeps(t int64) bool {
	c := s.counted
	return c == nil || time.Duration(t+1)*time.Second > c[0] && time.Duration(t)*time.Second < c[1]
}

// streamWork is what a stream's workers do: the ops of its mix and their
// key spaces, or a fixed list of tasks run once each (prepare, cleanup),
// and the data and options of those ops.
type streamWork struct {
	block     *payload.Block
	seed      uint64
	mix       mix
	ops       []*opDef  // the mix's ops (main stages)
	fixed     fixedWork // prepare/cleanup: each task of a list once
	sizes     workload.Selector
	sizeSeq   *atomic.Uint64
	sizeSeed  uint64 // prepared object i's size is drawn from (sizeSeed, i): the same in every worker
	getRange  int64  // GET reads ranges of this size (flags' --range-size)
	rangeSize int64  // RANGE-GET reads ranges of this size
	partSize  int64
	verify    bool
	hashCheck bool // prepare: COSBench's hashCheck trailer on each object (hashcheck.go)
	fsync     bool
	s3        s3work // S3 request options
}

// fixedWork is a list of tasks run once each, n of them, made on demand:
// task i by at, or, for a list handed out in order and never held (a
// corpus), the next one by pull, whose ok=false ends the list early for
// the reason cause gives.
type fixedWork struct {
	n    int64
	at   func(w *worker, i int64) task
	pull func() (t task, ok bool, cause string)
}

// then is f followed by g (both indexed: at, not pull).
func (f fixedWork) then(g fixedWork) fixedWork {
	n := f.n
	return fixedWork{n: f.n + g.n, at: func(w *worker, i int64) task {
		if i < n {
			return f.at(w, i)
		}
		return g.at(w, i-n)
	}}
}

// stopper ends a stream's issuing once, remembering the first reason.
type stopper struct {
	once   sync.Once
	cause  string
	cancel context.CancelFunc
}

// finish records why the stream stopped (the first cause wins) and stops
// it issuing; in-flight ops go on under the stream's op context.
func (s *stopper) finish(cause string) {
	s.once.Do(func() { s.cause = cause })
	s.cancel()
}

// note records why the stream ends (the first cause wins) without
// stopping it: its workers finish what they hold.
func (s *stopper) note(cause string) {
	s.once.Do(func() { s.cause = cause })
}

// count notes one finished op for the run's error limits.
func (s *streamRun) count(failed bool) { s.run.policy.count(failed) }

// execute runs the stream's workers until they stop, sweeping the series
// each second, and summarizes. stop ends issuing; in-flight ops then get
// grace before their context is cancelled.
func (s *streamRun) execute(stop context.Context, grace time.Duration) (result.Stream, error) {
	stopCtx, cancel := context.WithCancel(stop)
	s.end.cancel = cancel
	defer cancel()
	if s.bounds.Duration > 0 {
		var c context.CancelFunc
		stopCtx, c = context.WithTimeout(stopCtx, s.bounds.Duration)
		defer c()
	}
	opCtx, hardStop := context.WithCancel(context.WithoutCancel(stop))
	defer hardStop()
	s.opCtx, s.stopCtx = opCtx, stopCtx
	s.outages.origin = s.series.Start()
	s.refusals.origin = s.series.Start()
	graceTimer := context.AfterFunc(stopCtx, func() { time.AfterFunc(grace, hardStop) })
	defer graceTimer()

	workersDone := make(chan struct{})
	var sweep errgroup.Group
	sweep.Go(func() error { s.sweepEachSecond(workersDone); return nil })
	s.runners = newRunners()
	defer s.runners.close() // when execute returns: every worker has stopped
	var wg errgroup.Group
	switch {
	case s.script != nil:
		s.runScript(stopCtx, &wg)
	case s.sched != nil:
		s.openLoop(stopCtx, &wg)
	default:
		for i := range s.workers {
			w := newWorker(s, i)
			wg.Go(func() error { w.closedLoop(stopCtx); s.addRates(w); return nil })
		}
	}
	err := wg.Wait()
	close(workersDone)
	if serr := sweep.Wait(); err == nil {
		err = serr
	}
	if err != nil {
		return result.Stream{}, err
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
					if s.keeps(sec.T) {
						on(s.name, sec)
					}
					s.liveNext = sec.T + 1
				}
			}
		case <-done:
			return
		}
	}
}

func (s *streamRun) result(stopCtx context.Context) (result.Stream, error) {
	secs, win := s.series.Finish()
	if s.script != nil { // a script's ops are no steady loop: its rates are over the whole step
		win = s.series.Span()
	}
	if c := s.counted; c != nil { // the ramps' seconds are not part of the result
		kept := secs[:0]
		for _, sec := range secs {
			if s.keeps(sec.T) {
				kept = append(kept, sec)
			}
		}
		secs = kept
		win = result.SnapWindow(result.Window{Start: max(win.Start, c[0].Seconds()), End: min(win.End, c[1].Seconds())})
		if win.End <= win.Start {
			win = result.Window{}
		}
	}
	if on := s.run.cfg.OnSecond; on != nil { // the step's last seconds, final only now
		for _, sec := range secs {
			if sec.T >= s.liveNext {
				on(s.name, sec)
			}
		}
	}
	res := result.Stream{Name: s.name, Concurrency: s.workers, StoppedBy: s.end.cause, Seconds: secs, Outages: s.outages.list(),
		Phases: s.series.Phases()}
	if s.sched != nil {
		win = s.sched.window(s.series.Start(), win)
		res.MaxWorkers, res.PeakWorkers = s.sched.maxWorkers, int(s.sched.started.Load())
	}
	if res.StoppedBy == "" {
		switch {
		case s.run.policy.aborted() != "":
			res.StoppedBy = s.run.policy.aborted()
		case context.Cause(stopCtx) == context.DeadlineExceeded:
			res.StoppedBy = "duration"
		default:
			res.StoppedBy = "interrupted"
		}
	}
	if err := res.SetWindow(win); err != nil {
		return res, err
	}
	res.COSBench = s.cosbenchRates(res.Totals)
	return res, nil
}
