package live

import "sync"

// pages is the connected pages and what the broadcaster sends them. The
// View's lock guards it; the channels are used without it.
type pages struct {
	subs     map[*subscriber]struct{}
	end      []byte         // the final event's frame, once sent
	wake     chan struct{}  // the broadcaster's wake-up: at most one pending
	ended    chan struct{}  // closed when the final event went out
	lingered sync.WaitGroup // connected pages, until they leave or their linger ends
}

// subscriber is one connected page: frames queue in ch. Only the
// broadcaster sends on ch and closes it: after the final event, or when
// the page fell too far behind (lagged; its EventSource then reconnects
// and starts afresh).
type subscriber struct {
	ch     chan []byte
	from   int64 // events up to this one were in its first frame
	closed bool  // the broadcaster's own
	lagged bool  // set before ch is closed
}

// signal wakes the broadcaster.
func (p *pages) signal() {
	select {
	case p.wake <- struct{}{}:
	default: // a wake-up is pending; it will find everything queued
	}
}

// subscribe adds a page whose first frame holds the events up to from.
func (p *pages) subscribe(from int64) *subscriber {
	s := &subscriber{ch: make(chan []byte, 64), from: from}
	p.subs[s] = struct{}{}
	return s
}

// remove forgets a page that left; its channel is the broadcaster's to
// close.
func (p *pages) remove(s *subscriber) { delete(p.subs, s) }

// list returns the connected pages.
func (p *pages) list() []*subscriber {
	subs := make([]*subscriber, 0, len(p.subs))
	for s := range p.subs {
		subs = append(subs, s)
	}
	return subs
}

// drop ends the stream of a page that fell behind.
func (p *pages) drop(s *subscriber) {
	delete(p.subs, s)
	s.lagged, s.closed = true, true
	close(s.ch)
}

// finish sends end, the final event's frame, to every page, keeps it for
// pages that connect later, and closes their streams.
func (p *pages) finish(end []byte) {
	p.end = end
	for s := range p.subs {
		if !s.closed {
			trySend(s, end) // a page too far behind misses it, and reconnects to it
			s.closed = true
			close(s.ch)
		}
		delete(p.subs, s)
	}
	close(p.ended)
}

// trySend queues f for s without waiting; false: s has 64 frames unread.
func trySend(s *subscriber, f []byte) bool {
	select {
	case s.ch <- f:
		return true
	default:
		return false
	}
}
