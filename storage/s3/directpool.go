package s3

import (
	"context"
	"net"
	"time"

	"github.com/objbench/objbench/storage"
)

// get returns an idle connection, or dials one (its setup phases go into
// ph). Under a connection limit with every connection busy it waits for
// one to come back or close, and says how long in ph.ConnWait.
func (t *directTransport) get(ctx context.Context, ph *storage.Phases) (c *directConn, reused bool, err error) {
	now := time.Now()
	t.mu.Lock()
	for n := len(t.idle); n > 0; n = len(t.idle) {
		c = t.idle[n-1]
		t.idle = t.idle[:n-1]
		if now.Sub(c.lastUsed) < idleLimit {
			t.mu.Unlock()
			t.counts.reused.Add(1)
			return c, true, nil
		}
		c.close()
		if t.limit > 0 {
			t.open--
		}
	}
	if t.limit == 0 || t.open < t.limit {
		if t.limit > 0 {
			t.open++
		}
		t.mu.Unlock()
		return t.dial(ctx, ph)
	}
	ch := make(chan *directConn, 1)
	t.waiters = append(t.waiters, ch)
	t.mu.Unlock()
	select {
	case c = <-ch:
	case <-ctx.Done():
		if t.leave(ch) {
			return nil, false, ctx.Err()
		}
		// Handed something just as the wait ended: pass it on.
		if c = <-ch; c != nil {
			t.put(c)
		} else {
			t.releaseSlot()
		}
		return nil, false, ctx.Err()
	}
	ph.ConnWait = time.Since(now)
	if c == nil { // a slot, counted as open for us
		return t.dial(ctx, ph)
	}
	t.counts.reused.Add(1)
	return c, true, nil
}

// leave takes ch off the waiters; false if it was already served.
func (t *directTransport) leave(ch chan *directConn) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, w := range t.waiters {
		if w == ch {
			t.waiters = append(t.waiters[:i], t.waiters[i+1:]...)
			return true
		}
	}
	return false
}

// dial opens a connection; under a limit its slot is already counted.
func (t *directTransport) dial(ctx context.Context, ph *storage.Phases) (*directConn, bool, error) {
	var nc net.Conn
	var setup connSetup
	var err error
	if t.dials != nil {
		nc, setup, err = t.dialAside(ctx, ph)
	} else {
		nc, setup, err = t.dialer.dial(ctx, t.addr, t.dialer.tls)
	}
	if err != nil {
		t.releaseSlot()
		return nil, false, err
	}
	setup.into(ph)
	c := &directConn{nc: nc}
	if t.lazyRead {
		c.rc = rawConn(nc)
		c.raw.init(c.rc)
	}
	return c, false, nil
}

// dialAside dials on a goroutine of its own, a few at a time (t.dials).
// net.Dialer's path is deep (its frames and a deadline timer's): dialed on
// the worker's goroutine it grew every worker's stack to 16 KiB at the
// start of a run, twice what the request path needs, and a stack shrinks
// only at a later GC: 10,000 workers peaked 80 MB higher. The worker waits
// for a turn (counted as ConnWait) and for the dial on a channel, at the
// depth it parks at anyway.
func (t *directTransport) dialAside(ctx context.Context, ph *storage.Phases) (net.Conn, connSetup, error) {
	type dialed struct {
		nc    net.Conn
		setup connSetup
		err   error
	}
	waitStart := time.Now()
	select {
	case t.dials <- struct{}{}:
	case <-ctx.Done():
		return nil, connSetup{}, ctx.Err()
	}
	ph.ConnWait += time.Since(waitStart)
	ch := make(chan dialed, 1)
	go func() {
		nc, setup, err := t.dialer.dial(ctx, t.addr, t.dialer.tls)
		<-t.dials
		ch <- dialed{nc, setup, err}
	}()
	d := <-ch
	return d.nc, d.setup, d.err
}

// put returns a connection after a clean exchange: to a waiter, to the
// idle pool, or closed when the pool is full.
func (t *directTransport) put(c *directConn) {
	c.lastUsed = time.Now()
	t.mu.Lock()
	if len(t.waiters) > 0 {
		ch := t.waiters[0]
		t.waiters = t.waiters[1:]
		t.mu.Unlock()
		ch <- c
		return
	}
	if len(t.idle) < t.maxIdle {
		t.idle = append(t.idle, c)
		t.mu.Unlock()
		return
	}
	t.mu.Unlock()
	t.discard(c)
}

// discard closes a connection and frees its slot under a limit.
func (t *directTransport) discard(c *directConn) {
	c.close()
	t.releaseSlot()
}

// releaseSlot gives a closed (or never opened) connection's slot to the
// first waiter, which dials, or frees it.
func (t *directTransport) releaseSlot() {
	if t.limit == 0 {
		return
	}
	t.mu.Lock()
	if len(t.waiters) > 0 {
		ch := t.waiters[0]
		t.waiters = t.waiters[1:]
		t.mu.Unlock()
		ch <- nil
		return
	}
	t.open--
	t.mu.Unlock()
}

// CloseIdleConnections closes every pooled connection.
func (t *directTransport) CloseIdleConnections() {
	t.mu.Lock()
	idle := t.idle
	t.idle = nil
	t.mu.Unlock()
	for _, c := range idle {
		t.discard(c)
	}
}
