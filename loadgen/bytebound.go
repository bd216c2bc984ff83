package loadgen

import "github.com/objbench/objbench/metrics"

// A stream's byte bound is claimed before each op is issued, as its op
// bound is: an op that would start with the bound already claimed is not
// issued, so a step ends within one object of its bound, however many
// workers are in flight (counting bytes only as ops ended let every
// worker's op in flight run past it). A failed op gives its claim back;
// one that moved more or less than claimed (a GET of an object of unknown
// size) settles the difference. streamRun.moved holds the bytes claimed.

// bytesReached reports whether the stream's byte bound is claimed in full
// (and then stops the stream); checked before a task is drawn.
func (s *streamRun) bytesReached() bool {
	if s.bounds.Bytes > 0 && s.moved.Load() >= s.bounds.Bytes {
		s.end.finish("bytes")
		return true
	}
	return false
}

// claimBytes claims the bytes t will move; ok=false: the bound was
// reached meanwhile, t is given back and the stream stops.
func (w *worker) claimBytes(t task) (claim int64, ok bool) {
	s := w.s
	if s.bounds.Bytes <= 0 {
		return 0, true
	}
	n := w.bytesOf(t)
	if n == 0 {
		return 0, true
	}
	if prior := s.moved.Add(n) - n; prior >= s.bounds.Bytes {
		s.moved.Add(-n)
		if t.pool != nil && (t.op == metrics.OpGet || t.op == metrics.OpRangeGet) {
			t.pool.release(t.key)
		}
		s.end.finish("bytes")
		return 0, false
	}
	return n, true
}

// settleBytes replaces the claim by the bytes the op moved.
func (w *worker) settleBytes(claim int64) {
	s := w.s
	if s.bounds.Bytes > 0 && s.moved.Add(w.res.Bytes-claim) >= s.bounds.Bytes {
		s.end.finish("bytes")
	}
}

// bytesOf is what t is expected to move: a write's size, a read's object
// or range.
func (w *worker) bytesOf(t task) int64 {
	switch t.op {
	case metrics.OpPut, metrics.OpMultipart:
		return t.size
	case metrics.OpGet:
		if r := w.s.work.getRange; r > 0 {
			return min(r, t.size)
		}
		return t.size
	case metrics.OpRangeGet:
		return min(w.s.work.rangeSize, t.size)
	}
	return 0
}
