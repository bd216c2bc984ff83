package storage

import (
	"context"
	"io"
)

// GetStarter is a Store that can send a GET and return before its answer
// arrives. With thousands of workers in flight, almost all of them
// waiting, what a waiting worker holds is what the process holds: a
// worker that waits in PendingGet.Await, at the top of its loop, has none
// of the request path's frames on its stack (the GC scans, and counts
// into its goal, only the part of a stack in use). ok=false: the store
// would only wait inside Get (few workers, or a transport that cannot
// wait apart); nothing was sent, and the caller uses Get.
type GetStarter interface {
	// GetsApart reports whether StartGet sends plain GETs apart (and
	// does not return ok=false for them).
	GetsApart() bool
	StartGet(ctx context.Context, key string, o GetOptions) (p PendingGet, ok bool)
}

// PendingGet is a GET that StartGet sent. Await blocks until its answer
// can be read, or the exchange failed (Finish reports how); Finish reads
// the answer into w as Get would, and releases everything. Finish is
// called exactly once, after Await or without it (it then waits itself);
// the PendingGet is not used after Finish.
type PendingGet interface {
	Await()
	Finish(w io.Writer) (int64, error)
}
