package metrics

import (
	"math"
	"time"
)

// TicksPerSecond is the resolution at which a step's window is placed and
// its ops counted: a window starts and ends on a tick (10 ms), and the
// seconds at its edges keep how many successful ops, and bytes, ended in
// each of their ticks. So the ops counted in a window are exactly the ops
// that ended inside it, whatever the step's length: the window's rate is
// (ops in it) / (its length), never a share of a whole second.
const TicksPerSecond = 100

// Tick is one tick's length.
const Tick = time.Second / TicksPerSecond

// tickCounts is one op's successful ops and their bytes per tick of a second.
type tickCounts [TicksPerSecond]struct{ ok, bytes int64 }

// tickOf is the tick of its second in which an instant at (after the
// series start) falls.
func tickOf(at time.Duration) int {
	return int(at % time.Second / Tick)
}

// Ticks is the result file's form of one op's tick counts in one second:
// successful ops and their bytes per tick, trailing zero ticks left out.
type Ticks struct {
	OK    []int64 `json:"ok"`
	Bytes []int64 `json:"bytes"`
}

func (tc *tickCounts) export() *Ticks {
	if tc == nil {
		return nil
	}
	nOK, nBytes := 0, 0 // lengths up to the last non-zero tick
	for i, c := range tc {
		if c.ok != 0 {
			nOK = i + 1
		}
		if c.bytes != 0 {
			nBytes = i + 1
		}
	}
	if nOK == 0 && nBytes == 0 {
		return nil
	}
	t := &Ticks{OK: make([]int64, nOK), Bytes: make([]int64, nBytes)}
	for i := range nOK {
		t.OK[i] = tc[i].ok
	}
	for i := range nBytes {
		t.Bytes[i] = tc[i].bytes
	}
	return t
}

// sum adds the ticks from..to-1 (indices within the second).
func (t *Ticks) sum(from, to int) (ok, bytes int64) {
	for i := max(from, 0); i < to && i < len(t.OK); i++ {
		ok += t.OK[i]
	}
	for i := max(from, 0); i < to && i < len(t.Bytes); i++ {
		bytes += t.Bytes[i]
	}
	return ok, bytes
}

// tickIndex is the tick at or after x seconds, forgiving the rounding of
// a float that was meant to lie on a tick.
func tickIndex(x float64) int64 {
	return int64(math.Ceil(x*TicksPerSecond - 1e-6))
}

// ticksToSeconds is n ticks as seconds.
func ticksToSeconds(n int64) float64 { return float64(n) / TicksPerSecond }

// SnapWindow places a window on ticks: its start moves forward and its end
// back to the nearest tick, so it holds only whole ticks. A window that
// snaps to nothing comes back empty.
func SnapWindow(w Window) Window {
	lo := tickIndex(w.Start)
	hi := int64(math.Floor(w.End*TicksPerSecond + 1e-6))
	if hi <= lo {
		return Window{}
	}
	return Window{Start: ticksToSeconds(lo), End: ticksToSeconds(hi)}
}

// edgeSeconds is how many seconds at each edge of a window keep their
// ticks in a result: the edges' own seconds, and enough around them that
// workers started together can be merged on a common window exactly.
const edgeSeconds = 3

// KeepEdgeTicks drops the tick counts of every second that lies away from
// w's edges: the seconds that w covers whole need none, and a result file
// should grow with seconds, not ticks.
func KeepEdgeTicks(secs []Second, w Window) {
	lo, hi := int64(math.Floor(w.Start)), int64(math.Ceil(w.End))
	for i := range secs {
		t := secs[i].T
		if t < lo+edgeSeconds || t >= hi-edgeSeconds {
			continue
		}
		for j := range secs[i].Ops {
			secs[i].Ops[j].Ticks = nil
		}
	}
}
