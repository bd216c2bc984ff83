package loadgen

import (
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
)

// tracedPhases is the phases an op's trace holds when its store fills
// them (a network store: one that counts connections), else nil.
func tracedPhases(st storage.Store, tr *storage.Trace) *storage.Phases {
	if _, ok := st.(storage.ConnCounter); !ok {
		return nil
	}
	return &tr.Phases
}

// connections sums the connection counts of every store in use; ok=false
// when none is a network store.
func (r *runState) connections() (c storage.ConnStats, ok bool) {
	for _, s := range r.everyStore() {
		if cc, is := s.(storage.ConnCounter); is {
			n := cc.Connections()
			c.Requests += n.Requests
			c.Opened += n.Opened
			c.Reused += n.Reused
			c.ServerClosed += n.ServerClosed
			c.TLSHandshakes += n.TLSHandshakes
			c.TLSResumed += n.TLSResumed
			ok = true
		}
	}
	return c, ok
}

// connectionsSince is what happened to connections since c0 (a count of
// connections()), nil when no store counts them.
func (r *runState) connectionsSince(c0 storage.ConnStats) *result.Connections {
	c1, ok := r.connections()
	if !ok {
		return nil
	}
	return &result.Connections{Requests: c1.Requests - c0.Requests, Opened: c1.Opened - c0.Opened, Reused: c1.Reused - c0.Reused,
		ServerClosed: c1.ServerClosed - c0.ServerClosed, TLSHandshakes: c1.TLSHandshakes - c0.TLSHandshakes,
		TLSResumed: c1.TLSResumed - c0.TLSResumed}
}
