package live

import (
	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/objbench/objbench/result"
)

// eventQueue turns the current step's seconds, merged across streams, into
// numbered events for the broadcaster, in order.
type eventQueue struct {
	shown   int64   // the current step's last second sent (-1: none)
	cur     tick    // the second being merged
	seq     int64   // events made so far
	last    *Event  // the latest event (a new page starts from it)
	pending []Event // made, not yet broadcast
}

// push numbers ev, the merged second cur, and queues it; the next second
// starts afresh.
func (q *eventQueue) push(ev Event) {
	q.seq++
	ev.Seq = q.seq
	q.pending = append(q.pending, ev)
	q.last = &ev
	q.shown = q.cur.t
	q.cur = tick{}
}

// take returns the queued events and empties the queue.
func (q *eventQueue) take() []Event {
	evs := q.pending
	q.pending = nil
	return evs
}

// tick is the second being merged across streams.
type tick struct {
	has        bool
	t          int64
	seen       int // streams that delivered it
	ops, bytes int64
	errors     int64
	lat        *hdr.Histogram
}

// add counts one op's record of the second, lat its decoded latency
// histogram (nil: none), which the tick may keep.
func (c *tick) add(o result.OpSecond, lat *hdr.Histogram) {
	c.ops += o.Ops
	c.bytes += o.Bytes
	for _, e := range o.Errors {
		c.errors += e
	}
	if lat != nil {
		if c.lat == nil {
			c.lat = lat
		} else {
			c.lat.Merge(lat)
		}
	}
}
