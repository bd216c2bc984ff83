package s3

import (
	"context"
	"time"
)

// A request's context ending must interrupt its connection's blocked read
// or write: a watch set with context.AfterFunc moves the socket's deadline
// into the past. Registering one per request cost an allocation, a lock
// of the context every worker shares, and a map insert and delete in its
// children, for a context that is the same on every request (loadgen's
// ops all run under one). So a connection keeps its watch from request to
// request while the context's Done channel stays the same, and sets a new
// one only when it changes. A watch that has fired has poisoned the
// deadline; the next exchange sets the deadline again (after waiting for
// the watch to be done), so the connection stays usable if its next
// request's context is alive.
type connWatch struct {
	done    <-chan struct{} // the watched context's Done (nil: none)
	unwatch func() bool
	fired   chan struct{} // closed once the watch has poisoned the deadline
}

// watch makes ctx's end interrupt c's I/O, reusing the watch already set
// for a context with the same Done channel.
func (c *directConn) watch(ctx context.Context) {
	done := ctx.Done()
	w := &c.w
	if done == w.done && done != nil {
		return
	}
	c.unwatch()
	if done == nil { // never ends: nothing to watch
		return
	}
	fired := make(chan struct{})
	nc := c.nc
	w.done, w.fired = done, fired
	w.unwatch = context.AfterFunc(ctx, func() {
		_ = nc.SetDeadline(aLongTimeAgo)
		close(fired)
	})
}

// unwatch removes c's watch; if it already fired, it waits until the
// watch has set the deadline, so the caller's next SetDeadline wins.
func (c *directConn) unwatch() {
	w := &c.w
	if w.unwatch == nil {
		return
	}
	if !w.unwatch() {
		<-w.fired
	}
	*w = connWatch{}
}

// watchFired reports whether the context watched has ended and poisoned
// c's deadline.
func (c *directConn) watchFired() bool {
	if c.w.fired == nil {
		return false
	}
	select {
	case <-c.w.fired:
		return true
	default:
		return false
	}
}

// close closes the connection and drops its watch.
func (c *directConn) close() {
	c.unwatch()
	c.nc.Close()
}

var aLongTimeAgo = time.Unix(1, 0)
