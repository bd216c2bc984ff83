package plan

import (
	"container/heap"
	"fmt"
	"time"

	"github.com/objbench/objbench/replay"
)

// Loop is how a replay paces the trace's requests.
type Loop string

const (
	// LoopAuto is LoopClosed for an op log of a closed-loop run (worker
	// ids, no intended starts), LoopOpen for anything else.
	LoopAuto Loop = ""
	// LoopOpen issues every request at its offset, whatever the store
	// does: workers are added while requests find them all busy, and a
	// request finding the most busy is dropped and counted (as --rate).
	// Production traffic arrives this way: its clients do not wait for
	// each other.
	LoopOpen Loop = "open"
	// LoopClosed has a fixed number of workers (the most requests the
	// trace had in flight at once, unless Options.Concurrency says) take
	// the requests in the trace's order, each issued at its offset or, when
	// every worker was busy until later, as soon as one is free: none is
	// dropped, and the response time counts from the offset. A closed-loop
	// run's workers made their requests this way.
	LoopClosed Loop = "closed"
)

// ParseLoop accepts a Loop's name ("auto" for LoopAuto).
func ParseLoop(s string) (Loop, error) {
	switch l := Loop(s); l {
	case LoopOpen, LoopClosed:
		return l, nil
	case "auto", "":
		return LoopAuto, nil
	}
	return "", fmt.Errorf("unknown pacing %q (want auto, open or closed)", s)
}

// pace is what the first pass learns of how the trace was paced.
type pace struct {
	records, fromLog, intended int64
	inFlight                   endHeap // the ends of the requests in flight at the latest start
	peak                       int     // the most requests in flight at once
}

// add notes one record, in time order, at start (its offset in the
// trace: a whole-second log's requests spread over their second).
func (c *pace) add(rec *replay.Record, start time.Duration) {
	c.records++
	if rec.Worker >= 0 {
		c.fromLog++
		if !rec.Intended.IsZero() {
			c.intended++
		}
	}
	if rec.Latency <= 0 {
		return
	}
	now := int64(start)
	for len(c.inFlight) > 0 && c.inFlight[0] <= now {
		heap.Pop(&c.inFlight)
	}
	heap.Push(&c.inFlight, now+int64(rec.Latency))
	c.peak = max(c.peak, len(c.inFlight))
}

// closedLoopLog reports whether every record came from an op log of a
// closed-loop run: worker ids, and no intended start.
func (c *pace) closedLoopLog() bool {
	return c.records > 0 && c.fromLog == c.records && c.intended == 0
}

// endHeap is a min-heap of end offsets (ns); it holds one entry a request
// in flight, so its size is the trace's concurrency, not its length.
type endHeap []int64

func (h endHeap) Len() int           { return len(h) }
func (h endHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h endHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *endHeap) Push(x any)        { *h = append(*h, x.(int64)) }
func (h *endHeap) Pop() any {
	old := *h
	n := len(old)
	x := old[n-1]
	*h = old[:n-1]
	return x
}

// Loop is how the replay paces the trace: Options.Loop, or what the
// trace asks for (LoopAuto); "" at full speed (Options.Speed 0).
func (p *Plan) Loop() Loop {
	switch {
	case p.o.Speed == 0:
		return ""
	case p.o.Loop != LoopAuto:
		return p.o.Loop
	case p.pace.closedLoopLog():
		return LoopClosed
	}
	return LoopOpen
}

// LogConcurrency is the most requests the trace had in flight at once,
// from their starts and durations (0 when it gives no durations).
func (p *Plan) LogConcurrency() int { return p.pace.peak }

// Concurrency is the workers the replay starts: Options.Concurrency, or,
// closed loop, the trace's own; else 8.
func (p *Plan) Concurrency() int {
	switch {
	case p.o.Concurrency > 0:
		return p.o.Concurrency
	case p.Loop() == LoopClosed && p.pace.peak > 0:
		return p.pace.peak
	}
	return DefaultConcurrency
}

// DefaultConcurrency is the workers a replay starts with when neither
// Options.Concurrency nor the trace says.
const DefaultConcurrency = 8
