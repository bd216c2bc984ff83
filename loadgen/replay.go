package loadgen

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/workload"
)

// ReplayOp is one op of a replayed trace, its key already in the run's
// namespace.
type ReplayOp struct {
	// At is when the op is due after the replay's first op (already
	// divided by the speed); ignored when the replay runs as fast as it
	// can.
	At  time.Duration
	Op  metrics.Op
	Key string
	// Size is the bytes to write (PUT, MULTIPART) or the object's size
	// when known (reads); 0 when unknown.
	Size int64
	// Range is the part a RANGE-GET reads; Offset -1: anywhere in the
	// object (drawn within Size).
	Range storage.Range
	// turn keeps the op after the earlier ops of its key (keyOrder).
	turn turn
}

// ReplaySource yields a trace's ops in the order they are due; ok=false:
// the trace is over (Err says whether it ended on an error). Only one
// goroutine calls Next at a time.
type ReplaySource interface {
	Next() (ReplayOp, bool)
	Err() error
}

// ReplayObject is an object the trace reads before it writes it, which
// the replay's prepare stage writes first.
type ReplayObject struct {
	Key  string // in the run's namespace
	Size int64
}

// ReplayObjects yields the objects to prepare; ok=false: no more. Safe
// for concurrent use.
type ReplayObjects interface {
	Next() (ReplayObject, bool)
}

// Replay replaces one stream of the workload by a trace: its prepare
// stage writes Prepare, its main stage issues the trace's ops, open loop
// at their offsets (or closed loop: Paced, MaxSpeed). The stream's
// workload entry gives its name, concurrency and key space (for
// cleanup). Whatever the pacing, an op starts only once the earlier ops
// of its key that it depends on have ended (a read after a write, a write
// after any op), as they had where the trace was recorded.
type Replay struct {
	Stream string
	Ops    ReplaySource
	// Prepare yields the Prepared objects to write first.
	Prepare  ReplayObjects
	Prepared int64
	// MaxSpeed issues the ops back to back on the stream's workers
	// (closed loop) instead of at their offsets.
	MaxSpeed bool
	// Paced issues the ops on the stream's workers (closed loop), each
	// worker taking the next op of the trace and issuing it at its
	// offset, at once when it is late: as a closed-loop run's workers
	// did, at most that many in flight, none dropped; the response time
	// counts from the offset.
	Paced bool
	// MaxWorkers bounds the workers the open loop may grow to (0:
	// DefaultWorkerCap).
	MaxWorkers int

	held atomic.Int64
}

// Held is how many ops waited for an earlier op of their key to end.
func (r *Replay) Held() int64 { return r.held.Load() }

// replayRun is a replay stream's state during its step.
type replayRun struct {
	cfg     *Replay
	prepare bool
	store   storage.Store
	order   *keyOrder
	// closed loop: the workers take ops in turn; a paced replay's
	// offsets count from origin, the first op's taking.
	mu     sync.Mutex
	origin time.Time
}

// replayPlan is the open-loop schedule of a trace: the dispatcher calls
// At(i) for i = 0, 1, ... in turn and finds op i in cur, its turn taken.
type replayPlan struct {
	src   ReplaySource
	order *keyOrder
	cur   ReplayOp
}

func (p *replayPlan) At(uint64) (time.Duration, bool) {
	op, ok := p.src.Next()
	if !ok {
		return 0, false
	}
	op.turn = p.order.enter(op.Op, op.Key)
	p.cur = op
	return op.At, true
}

// replayStream makes s the replay: prepare writes the objects the trace
// reads first, main issues its ops; nil when there is nothing to do.
func (r *runState) replayStream(s *streamRun, kind workload.StageKind) (*streamRun, error) {
	rp := r.cfg.Replay
	s.replay = &replayRun{cfg: rp, prepare: kind == workload.KindPrepare, store: r.cfg.Store, order: newKeyOrder()}
	s.bounds = workload.Bounds{}
	if kind == workload.KindPrepare {
		if rp.Prepared == 0 || rp.Prepare == nil {
			return nil, nil
		}
		s.workers = int(min(int64(max(s.workers, 1)), rp.Prepared))
		return s, nil
	}
	s.workers = max(s.workers, 1)
	if !rp.MaxSpeed && !rp.Paced {
		cap := rp.MaxWorkers
		if cap <= 0 {
			cap = DefaultWorkerCap
		}
		s.sched = newSchedule(&replayPlan{src: rp.Ops, order: s.replay.order}, cap, r.cfg.Seed)
		s.workers = min(s.workers, cap)
	}
	return s, nil
}

// replayTask is the worker's next op of the replay: the slot it serves
// (open loop), the next op of the trace (closed loop), or the next object
// to prepare.
func (w *worker) replayTask() (task, bool) {
	s, rr := w.s, w.s.replay
	var op ReplayOp
	switch {
	case rr.prepare:
		o, ok := rr.cfg.Prepare.Next()
		if !ok {
			s.end.finish("done")
			return task{}, false
		}
		op = ReplayOp{Op: metrics.OpPut, Key: o.Key, Size: o.Size}
	case w.slot != nil:
		op = w.slot.op
	default:
		var ok bool
		if op, ok = rr.take(); !ok {
			// The trace is over; the ops other workers hold (waiting
			// for their offset or their key's turn) still go out.
			s.end.note("schedule")
			return task{}, false
		}
	}
	t := task{op: op.Op, store: rr.store, key: op.Key, size: op.Size, seed: keySeed(op.Key), turn: op.turn}
	if rr.cfg.Paced && !rr.prepare {
		t.due = rr.origin.Add(op.At)
		if wait := time.Until(t.due); wait > 0 && !sleep(s.stopCtx, wait) {
			t.turn.leave()
			return task{}, false
		}
	}
	if t.turn.waits() {
		rr.cfg.held.Add(1)
		// Handed out, the op is in flight: it waits as long as the ops
		// before it may take (the grace after a stop), not just until
		// the stream stops issuing (the dispatcher's end of the trace).
		if !t.turn.await(s.opCtx) {
			t.turn.leave()
			return task{}, false
		}
	}
	if op.Op == metrics.OpRangeGet {
		g := op.Range
		if g.Length <= 0 {
			g.Length = max(op.Size, 1)
		}
		if g.Offset < 0 {
			g.Offset = 0
			if op.Size > g.Length {
				g.Offset = w.rng.Int64N(op.Size - g.Length + 1)
			}
		}
		t.rg = &g
	}
	return t, true
}

// take is the next op of the trace for a closed-loop worker, its turn
// taken.
func (rr *replayRun) take() (ReplayOp, bool) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	op, ok := rr.cfg.Ops.Next()
	if !ok {
		return op, false
	}
	if rr.origin.IsZero() {
		rr.origin = time.Now()
	}
	op.turn = rr.order.enter(op.Op, op.Key)
	return op, true
}

// paced reports whether the stream is a paced replay's main step.
func (rr *replayRun) paced() bool { return rr != nil && rr.cfg.Paced && !rr.prepare }

// replayOf reports whether stream name of a stage of kind is the replay.
func replayOf(r *runState, kind workload.StageKind, name string) bool {
	rp := r.cfg.Replay
	return rp != nil && rp.Stream == name && (kind == workload.KindPrepare || kind == workload.KindMain)
}
