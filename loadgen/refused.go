package loadgen

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/objbench/objbench/storage"
)

// A store that refuses every op for good (the run's credentials revoked,
// its bucket deleted) answers at once: workers that went straight on
// failed some 5,000 ops a second each, and read as an error storm. So
// after a final refusal a worker backs off as in an outage, the stream
// records the refusal as one period, and when nothing but refusals came
// back for RefusalLimit the run is aborted: the rest of it would measure
// nothing.
const RefusalLimit = 3 * time.Second

// refusalOf names err's final refusal ("access denied", "no such bucket"),
// or "" for an error that is not one.
func refusalOf(err error) string {
	switch {
	case errors.Is(err, storage.ErrAccessDenied):
		return "access denied"
	case errors.Is(err, storage.ErrBucketNotFound):
		return "no such bucket"
	}
	return ""
}

// refusal is one period in which a stream's ops were refused for good.
type refusal struct {
	why        string // the first refusal's kind
	start, end time.Duration
	ops        int64
	open       bool
}

// refusalLog collects a stream's refusals during one step, as outageLog
// collects outages: a refusal opens with a final error and closes with
// the first success of an op that started after it opened.
type refusalLog struct {
	origin time.Time
	open   atomic.Bool // a refusal is open: successes need the lock
	mu     sync.Mutex
	opened time.Time // when the open refusal began
	spans  []refusal
}

// failed counts a final refusal why at end and says for how long nothing
// but refusals came back.
func (l *refusalLog) failed(end time.Time, why string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.spans); n == 0 || !l.spans[n-1].open {
		at := end.Sub(l.origin)
		l.spans = append(l.spans, refusal{why: why, start: at, open: true})
		l.opened = end
		l.open.Store(true)
	}
	r := &l.spans[len(l.spans)-1]
	r.ops++
	r.end = max(r.end, end.Sub(l.origin))
	return end.Sub(l.opened)
}

// succeeded closes the open refusal when the op started after it opened.
// Every successful op calls it: without an open refusal it takes no lock.
func (l *refusalLog) succeeded(start time.Time) {
	if !l.open.Load() {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.spans); n > 0 && l.spans[n-1].open && !start.Before(l.opened) {
		l.spans[n-1].open = false
		l.open.Store(false)
	}
}

// notes say what each refusal was, for the step's notes.
func (l *refusalLog) notes(stream string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, r := range l.spans {
		until := fmt.Sprintf("%.2f s", r.end.Seconds())
		if r.open {
			until = "the end of the step (last at " + until + ")"
		}
		out = append(out, fmt.Sprintf("stream %s: every op refused (%s) from %.2f s to %s: %d ops; workers backed off (10 ms doubling to 1 s)",
			stream, r.why, r.start.Seconds(), until, r.ops))
	}
	return out
}

// refusalAbort is the run's abort detail for a refusal that lasted d.
func refusalAbort(stream, why string, d time.Duration) string {
	hint := "the store refuses the run's credentials (revoked or expired?)"
	if strings.Contains(why, "bucket") {
		hint = "the bucket is gone (deleted under the run?)"
	}
	return fmt.Sprintf("every op of stream %s was refused (%s) for %v: %s", stream, why, d.Round(time.Millisecond), hint)
}
