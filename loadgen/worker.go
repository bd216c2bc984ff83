package loadgen

import (
	"context"
	"io"
	"math/rand/v2"
	"time"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/payload"
	"github.com/objbench/objbench/storage"
)

// worker issues one stream's ops one at a time. It owns everything it
// touches per op (payload reader, trace, range, result), so the hot path
// allocates nothing for payloads.
type worker struct {
	s     *streamRun
	rec   *metrics.Recorder
	rng   *rand.Rand
	body  *payload.Reader
	trace storage.Trace
	rg    storage.Range
	res   metrics.Result
}

// task is one op to issue.
type task struct {
	op   metrics.Op
	key  string
	size int64  // bytes to write (PUT) or the object's size (GET)
	seed uint64 // payload position for PUT
}

func newWorker(s *streamRun, id int) *worker {
	return &worker{
		s:    s,
		rec:  s.series.NewRecorder(),
		rng:  rand.New(rand.NewPCG(uint64(id)+1, s.seed)),
		body: payload.NewReader(s.block),
	}
}

// loop issues ops until stop ends, the stream runs out of work or reaches a
// bound. Ops run under s.opCtx, which outlives stop by the grace period.
func (w *worker) loop(stop context.Context) {
	s := w.s
	for stop.Err() == nil {
		n := s.issued.Add(1)
		if s.bounds.Ops > 0 && n > s.bounds.Ops {
			s.finish("ops")
			return
		}
		wait, done := s.pacer.Pace(time.Since(s.series.Start()), uint64(n-1))
		if done {
			s.finish("schedule")
			return
		}
		if wait > 0 && !sleep(stop, wait) {
			return
		}
		t, ok := w.next()
		if !ok {
			return
		}
		w.run(t)
		if t.op == metrics.OpGet || t.op == metrics.OpStat {
			s.pool.release(t.key)
		}
		w.rec.Record(&w.res)
		if w.res.Err != nil {
			s.countError()
		}
		if s.bounds.Bytes > 0 && s.moved.Add(w.res.Bytes) >= s.bounds.Bytes {
			s.finish("bytes")
		}
	}
}

// next chooses the next task; ok=false means the stream has no more work.
func (w *worker) next() (task, bool) {
	s := w.s
	if s.listed {
		i := s.cursor.Add(1) - 1
		if i >= int64(len(s.fixed)) {
			s.finish("done")
			return task{}, false
		}
		return task{op: s.fixedOp, key: s.fixed[i], size: s.size, seed: uint64(i)}, true
	}
	t := task{op: s.mix.pick(w.rng)}
	ok := true
	switch t.op {
	case metrics.OpPut:
		t.key, t.seed = s.pool.newKey()
		t.size = s.size
	case metrics.OpList:
		t.key = s.pool.prefix
	case metrics.OpDelete:
		t.key, ok = s.pool.take(w.rng)
	default:
		t.key, t.size, ok = s.pool.pick(w.rng)
	}
	if !ok {
		s.finish("no objects left")
	}
	return t, ok
}

// run performs t and fills w.res with its timing and outcome.
func (w *worker) run(t task) {
	s, ctx := w.s, w.s.opCtx
	w.trace.FirstByte = time.Time{}
	start := time.Now()
	var err error
	var n int64
	switch t.op {
	case metrics.OpPut:
		w.body.Reset(t.seed, t.size)
		_, err = s.store.Put(ctx, t.key, w.body, t.size, storage.PutOptions{Trace: &w.trace, Fsync: s.fsync})
		if err == nil {
			n = t.size
			if s.pool != nil {
				s.pool.add(t.key, t.size)
			}
		}
	case metrics.OpGet:
		o := storage.GetOptions{Trace: &w.trace}
		if s.rangeSize > 0 && t.size > s.rangeSize {
			w.rg = storage.Range{Offset: w.rng.Int64N(t.size - s.rangeSize + 1), Length: s.rangeSize}
			o.Range = &w.rg
		}
		n, err = s.store.Get(ctx, t.key, o, io.Discard)
	case metrics.OpStat:
		_, err = s.store.Stat(ctx, t.key)
	case metrics.OpDelete:
		err = s.store.Delete(ctx, t.key)
	case metrics.OpList:
		err = s.store.List(ctx, t.key, func(storage.ObjectInfo) error { return nil })
	}
	w.res = metrics.Result{Op: t.op, Intended: start, Start: start, FirstByte: w.trace.FirstByte,
		End: time.Now(), Bytes: n, Err: err}
}

// sleep waits d or until ctx ends; it reports whether the full wait passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
