package loadgen

import (
	"context"
	"sync"

	"github.com/objbench/objbench/metrics"
)

// keyOrder keeps a replay's ops on one key in the trace's order, however
// long each takes in the replay: a read starts once every write of its
// key before it has ended, a write once every op of its key before it has
// ended. Reads of a key between two writes overlap as they may have where
// the trace was recorded. Without it, a PUT that takes longer in the
// replay than it did in the trace races the GET or HEAD after it (a 404
// the trace did not have), and a DELETE the GET before it.
//
// Ops enter in the trace's order, from one goroutine at a time (the
// dispatcher, or the worker holding the replay's lock); a key is
// remembered only while an op of it is in flight.
type keyOrder struct {
	mu   sync.Mutex
	keys map[string]*keyTurns
}

// keyTurns is one key's ops in flight: cur is the epoch new reads join.
type keyTurns struct {
	cur      *epoch
	inFlight int
}

// epoch is the ops of a key from one write up to the next: the write
// (ended: written closed; nil: the trace's first ops, no write before
// them) and the reads after it.
type epoch struct {
	written chan struct{}
	readers int
	idle    chan struct{} // closed when readers drops to 0; made when a write waits for it
}

// turn is one op's place in its key's order: what it waits for before it
// starts, and what it ends. The zero turn waits for nothing (a LIST, an
// op outside a replay).
type turn struct {
	o     *keyOrder
	key   string
	after [2]chan struct{}
	ep    *epoch // the epoch the op reads in, or the one its write opens
	write bool
}

func newKeyOrder() *keyOrder { return &keyOrder{keys: map[string]*keyTurns{}} }

// writes reports whether op changes its key's object; reads report
// false; ops without one object (LIST) take no turn.
func ordered(op metrics.Op) (ordered, writes bool) {
	switch op {
	case metrics.OpPut, metrics.OpMultipart, metrics.OpDelete:
		return true, true
	case metrics.OpGet, metrics.OpRangeGet, metrics.OpStat:
		return true, false
	}
	return false, false
}

// enter gives the next op of the trace on key its turn.
func (o *keyOrder) enter(op metrics.Op, key string) turn {
	ord, write := ordered(op)
	if !ord {
		return turn{}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	k := o.keys[key]
	if k == nil {
		k = &keyTurns{cur: &epoch{}}
		o.keys[key] = k
	}
	k.inFlight++
	ep := k.cur
	t := turn{o: o, key: key, write: write}
	t.after[0] = ep.written
	if !write {
		ep.readers++
		t.ep = ep
		return t
	}
	if ep.readers > 0 {
		if ep.idle == nil {
			ep.idle = make(chan struct{})
		}
		t.after[1] = ep.idle
	}
	t.ep = &epoch{written: make(chan struct{})}
	k.cur = t.ep
	return t
}

// await waits until the op may start; false if stop ended first.
func (t *turn) await(stop context.Context) bool {
	for _, c := range t.after {
		if c == nil {
			continue
		}
		select {
		case <-c:
		case <-stop.Done():
			return false
		}
	}
	return true
}

// waits reports whether the op may have to wait for an earlier one.
func (t *turn) waits() bool {
	for _, c := range t.after {
		if c != nil {
			select {
			case <-c:
			default:
				return true
			}
		}
	}
	return false
}

// leave ends the op's turn (it ended, or will never be issued): the ops
// of its key after it may go on. Once only; the zero turn does nothing.
func (t *turn) leave() {
	o := t.o
	if o == nil {
		return
	}
	t.o = nil
	o.mu.Lock()
	defer o.mu.Unlock()
	if t.write {
		close(t.ep.written)
	} else if t.ep.readers--; t.ep.readers == 0 && t.ep.idle != nil {
		close(t.ep.idle)
		t.ep.idle = nil
	}
	if k := o.keys[t.key]; k != nil {
		if k.inFlight--; k.inFlight == 0 {
			delete(o.keys, t.key)
		}
	}
}
