package loadgen

import (
	"context"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/objbench/objbench/distributed"
	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/workload"
)

// Schedule is an open-loop plan: slot i (the i-th op of the stream,
// counted from 0) is due At(i) after the schedule's origin, whatever the
// store does; ok=false: there is no slot i (the schedule is over).
// Implementations are safe for concurrent use.
type Schedule interface {
	At(i uint64) (at time.Duration, ok bool)
}

// slot is one op of an open-loop schedule as a worker gets it: when it is
// due and, for a replay, which op it is.
type slot struct {
	due    time.Time
	op     ReplayOp
	replay bool
}

// shareOf is one worker's part of a schedule split across processes:
// its j-th slot is the whole schedule's slot j*N + r.
type shareOf struct {
	Schedule
	w distributed.Worker
}

func (s shareOf) At(j uint64) (time.Duration, bool) { return s.Schedule.At(uint64(s.w.Nth(int64(j)))) }

// DefaultWorkerCap bounds the workers an open-loop stream may grow to when
// the workload sets no max_workers (--max-workers): past it, slots that
// find every worker busy are dropped.
const DefaultWorkerCap = 10_000

// DefaultOpenLoopHorizon is how long an open-loop stream expects an op may
// take (when no request timeout says so): its worker cap is the peak rate
// times this, so a store that stalls that long is still measured whole.
const DefaultOpenLoopHorizon = 10 * time.Second

// WorkerCap is how many workers an open-loop stream at rate r may grow to:
// r.MaxWorkers when set, else enough to keep the peak rate going while
// every op takes horizon, at least start and at most DefaultWorkerCap.
func WorkerCap(r workload.Rate, start int, horizon time.Duration) int {
	if r.MaxWorkers > 0 {
		return r.MaxWorkers
	}
	if horizon <= 0 {
		horizon = DefaultOpenLoopHorizon
	}
	need := math.Ceil(max(r.PerSec, r.To) * horizon.Seconds())
	return int(max(min(need, DefaultWorkerCap), float64(start), 1))
}

// schedule is an open-loop stream's pacing: a dispatcher walks the slots
// and hands each, as it comes due, to an idle worker; when none is idle it
// starts another (up to maxWorkers), and past that the slot is dropped:
// counted, never issued late, which would shrink the offered load exactly
// when the store slows down (coordinated omission).
type schedule struct {
	plan       Schedule
	maxWorkers int
	slots      chan slot     // intended starts, handed to idle workers
	origin     time.Time     // when slot 0 is due
	lastSlot   time.Duration // the latest slot that came due, after origin
	started    atomic.Int64  // workers started
	drops      *metrics.Recorder
	rng        *rand.Rand // the op a dropped slot is filed under
}

func newSchedule(plan Schedule, maxWorkers int, seed uint64) *schedule {
	return &schedule{plan: plan, maxWorkers: maxWorkers, slots: make(chan slot),
		rng: rand.New(rand.NewPCG(seed, 0x5ca1ab1e))}
}

// openLoop starts the stream's first workers and dispatches its slots
// until the schedule, a bound or stop ends it; it returns once every slot
// is handed out or dropped, with the workers still finishing in g.
func (s *streamRun) openLoop(stop context.Context, g *errgroup.Group) {
	sc := s.sched
	sc.drops = s.series.NewDropRecorder()
	spawn := func(first slot, has bool) {
		id := int(sc.started.Add(1) - 1)
		g.Go(func() error { w := newWorker(s, id); w.openLoop(first, has, sc.slots); s.addRates(w); return nil })
	}
	for range s.workers {
		spawn(slot{}, false)
	}
	sc.origin = time.Now()
	g.Go(func() error { s.dispatch(stop, spawn); return nil })
}

// dispatch hands out the slots in order as they come due.
func (s *streamRun) dispatch(stop context.Context, spawn func(slot, bool)) {
	sc := s.sched
	defer close(sc.slots)
	rp, replay := sc.plan.(*replayPlan) // a replay's slots carry their op
	for n := uint64(0); ; n++ {
		if s.bounds.Ops > 0 && n >= uint64(s.bounds.Ops) {
			s.end.finish("ops")
			return
		}
		at, ok := sc.plan.At(n)
		if !ok {
			s.end.finish("schedule")
			return
		}
		due := sc.origin.Add(at)
		if wait := time.Until(due); wait > 0 && !sleep(stop, wait) || stop.Err() != nil {
			if replay {
				rp.cur.turn.leave() // never issued
			}
			return // stopped before the slot came due: not in the window
		}
		sc.lastSlot = at
		sl := slot{due: due}
		if replay {
			sl.op, sl.replay = rp.cur, true
		}
		select {
		case sc.slots <- sl:
			continue
		default:
		}
		if int(sc.started.Load()) < sc.maxWorkers {
			spawn(sl, true)
			continue
		}
		if sl.replay {
			sc.drops.Dropped(sl.op.Op, time.Now())
			sl.op.turn.leave() // the ops of its key after it need not wait for it
			continue
		}
		sc.drops.Dropped(s.work.ops[s.work.mix.pick(sc.rng)].op, time.Now())
	}
}

// window is the open-loop window on ticks: from the first slot to the last
// that came due. The closed-loop rule (every worker has done an op .. the
// first worker stopped) would shrink to a sliver when many workers share
// the slots; open loop, the schedule is the load.
func (sc *schedule) window(seriesStart time.Time, fallback result.Window) result.Window {
	start := sc.origin.Sub(seriesStart).Seconds()
	w := result.SnapWindow(result.Window{Start: start, End: start + sc.lastSlot.Seconds()})
	if w.Duration() <= 0 {
		return fallback
	}
	return w
}
