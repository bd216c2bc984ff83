package loadgen

import "time"

// Pacer decides when a worker may issue its next op: it returns how long to
// wait (0: now), or stop when the schedule is over. elapsed is the time since
// the step began and done the number of ops issued so far across the stream.
// Implementations are safe for concurrent use.
type Pacer interface {
	Pace(elapsed time.Duration, done uint64) (wait time.Duration, stop bool)
}

// ClosedLoop issues the next op as soon as a worker is free.
type ClosedLoop struct{}

// Pace implements Pacer.
func (ClosedLoop) Pace(time.Duration, uint64) (time.Duration, bool) { return 0, false }
