package plan

import (
	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/replay"
)

// sizer finds the size of each object the trace reads before it writes
// it, for the prepare list. The read itself often says (a GET's bytes, a
// STAT's size); when it does not (a DELETE, a HEAD in CloudTrail or a
// MinIO trace), an op log's left-out prepare step may have written the
// object with its size, or a later read in the trace gives it: the object
// waits for it among at most max pending ones, and is written at the
// default size only when none comes.
type sizer struct {
	def     int64
	add     func(key string, size int64) // to the prepare list
	known   map[uint64]int64             // sizes from left-out steps, by key hash
	pending map[uint64]*pendingObject
	order   []uint64 // pending hashes, oldest first (entries already settled are passed over)
	head    int
	max     int
	// defaulted counts the objects written at the default size: the trace
	// never said how large they are; unkept the sizes of left-out steps
	// not remembered (maxKnown reached).
	defaulted, unkept int64
}

type pendingObject struct {
	key string
	min int64 // the end of the furthest range read of it
}

// maxKnown bounds the sizes remembered from left-out steps (some 40 bytes
// each); past it, their objects are sized by the trace's main steps alone.
const maxKnown = 1 << 22

func newSizer(def int64, lookAhead int, add func(string, int64)) *sizer {
	if lookAhead <= 0 {
		lookAhead = 1 << 16
	}
	return &sizer{def: def, add: add, known: map[uint64]int64{}, pending: map[uint64]*pendingObject{}, max: lookAhead}
}

// left notes what a left-out record (an op log's prepare step) says of
// its object's size.
func (z *sizer) left(h uint64, rec *replay.Record) {
	if !rec.OK() || rec.Size <= 0 {
		return
	}
	switch rec.Op {
	case metrics.OpPut, metrics.OpMultipart, metrics.OpGet, metrics.OpStat:
	default:
		return
	}
	if _, ok := z.known[h]; ok || len(z.known) < maxKnown {
		z.known[h] = rec.Size
		return
	}
	z.unkept++
}

// first is the first op on a key, a read that succeeded where the trace
// was recorded: the object must exist before it.
func (z *sizer) first(h uint64, op loadgen.ReplayOp, rec *replay.Record) {
	n, min := told(op, rec)
	if n <= 0 {
		n = z.known[h]
	}
	delete(z.known, h)
	if n > 0 {
		z.add(op.Key, max(n, min))
		return
	}
	z.pending[h] = &pendingObject{key: op.Key, min: min}
	z.order = append(z.order, h)
	for len(z.pending) > z.max {
		z.settleOldest()
	}
}

// later is a later op on a key already seen: a pending object learns its
// size from a read that tells it, or is settled at the default by a
// write (what it held before is not in the trace).
func (z *sizer) later(h uint64, op loadgen.ReplayOp, rec *replay.Record) {
	p := z.pending[h]
	if p == nil {
		return
	}
	switch op.Op {
	case metrics.OpGet, metrics.OpRangeGet, metrics.OpStat:
		if !rec.OK() {
			return
		}
		n, min := told(op, rec)
		p.min = max(p.min, min)
		if n <= 0 {
			return
		}
		z.add(p.key, max(n, p.min))
	case metrics.OpPut, metrics.OpMultipart, metrics.OpDelete:
		z.settle(p)
	default:
		return
	}
	delete(z.pending, h)
}

// finish settles the objects still pending at the end of the trace.
func (z *sizer) finish() {
	for len(z.pending) > 0 {
		z.settleOldest()
	}
	z.known = nil
}

func (z *sizer) settleOldest() {
	for z.head < len(z.order) {
		h := z.order[z.head]
		z.head++
		if p := z.pending[h]; p != nil {
			delete(z.pending, h)
			z.settle(p)
			break
		}
	}
	if z.head > 1024 && z.head*2 > len(z.order) {
		z.order = append(z.order[:0], z.order[z.head:]...)
		z.head = 0
	}
}

// settle writes a pending object at the default size (or the end of the
// furthest range read of it, when larger).
func (z *sizer) settle(p *pendingObject) {
	z.defaulted++
	z.add(p.key, max(z.def, p.min))
}

// told is the object's size a record tells (0: it does not) and the
// least it must hold (the end of a range read at a known offset).
func told(op loadgen.ReplayOp, rec *replay.Record) (size, min int64) {
	if op.Op == metrics.OpRangeGet && rec.Range.Offset >= 0 {
		min = rec.Range.Offset + rec.Range.Length
	}
	switch op.Op {
	case metrics.OpGet:
		size = rec.Size
		if size <= 0 {
			size = rec.BytesOut
		}
	case metrics.OpRangeGet, metrics.OpStat:
		size = rec.Size
	}
	return size, min
}
