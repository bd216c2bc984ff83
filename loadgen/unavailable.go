package loadgen

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
)

// When the store cannot be reached at all (connections refused or reset,
// dials failing), a worker that went straight on would fail thousands of
// ops a second and count every one as an error: an outage of a few
// seconds would read as tens of thousands of failures. So after such a
// failure a worker backs off, and the stream records the outage as a
// period.
const (
	backoffFirst = 10 * time.Millisecond
	backoffMax   = time.Second
)

// backoff is one worker's wait after connection-level failures: 10 ms,
// doubling up to 1 s, each wait drawn from its upper half (jitter, so the
// workers do not return in step); a success starts it over.
type backoff struct{ next time.Duration }

func (b *backoff) wait(rng *rand.Rand) time.Duration {
	if b.next == 0 {
		b.next = backoffFirst
	}
	d := b.next/2 + time.Duration(rng.Int64N(int64(b.next/2)+1))
	b.next = min(2*b.next, backoffMax)
	return d
}

func (b *backoff) reset() { b.next = 0 }

// outageLog collects a stream's outages during one step: an outage opens
// with a connection-level failure and closes with the first success of
// an op that started after it opened (an answer already on its way when
// the store went away proves nothing).
type outageLog struct {
	origin  time.Time // the step's second 0
	open    atomic.Bool
	mu      sync.Mutex
	opened  time.Time // when the open outage began
	outages []result.Outage
}

// failed counts a connection failure at end; unreachable ones open an
// outage, others only add to one that is open.
func (l *outageLog) failed(end time.Time, unreachable bool) {
	if !unreachable && !l.open.Load() {
		return
	}
	at := end.Sub(l.origin).Seconds()
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.open.Load() {
		if !unreachable {
			return
		}
		l.outages = append(l.outages, result.Outage{Start: at, End: at, Open: true})
		l.opened = end
		l.open.Store(true)
	}
	o := &l.outages[len(l.outages)-1]
	o.OpsLost++
	o.End = max(o.End, at)
}

func (l *outageLog) succeeded(start, end time.Time) {
	if !l.open.Load() { // the common case: no lock
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open.Load() && !start.Before(l.opened) {
		o := &l.outages[len(l.outages)-1]
		o.End, o.Open = max(o.End, end.Sub(l.origin).Seconds()), false
		l.open.Store(false)
	}
}

// list is the step's outages; one still open ends at its last failure.
func (l *outageLog) list() []result.Outage {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.outages) == 0 {
		return nil
	}
	return append([]result.Outage(nil), l.outages...)
}

// afterOp follows the op just recorded: a success ends the worker's
// backoff (and an outage it proves over); a connection that could not be
// made opens an outage (or adds to the open one), a connection reset
// under a request adds to an open one; after either the worker waits,
// unless the stream stops first. (A reset alone, from a store that
// answers the next request, is an error, not an outage.)
func (w *worker) afterOp(stop context.Context) {
	switch err := w.res.Err; {
	case err == nil:
		w.back.reset()
		w.s.outages.succeeded(w.res.Start, w.res.End)
		w.s.refusals.succeeded(w.res.Start)
	case storage.ConnectionFailure(err):
		w.s.outages.failed(w.res.End, storage.Unreachable(err))
		sleep(stop, w.back.wait(w.rng))
	default:
		why := refusalOf(err)
		if why == "" {
			return
		}
		// A final refusal: back off, and abort if it lasts (refused.go).
		if d := w.s.refusals.failed(w.res.End, why); d >= RefusalLimit {
			w.s.run.policy.abort("refused", refusalAbort(w.s.name, why, d))
		}
		sleep(stop, w.back.wait(w.rng))
	}
}
