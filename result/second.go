package result

import (
	"math"
	"time"
)

// Second is one second of one stream in one step. T counts seconds from
// the step's start.
type Second struct {
	T   int64      `json:"t"`
	Ops []OpSecond `json:"ops"`
}

// OpSecond is what one op did in one second: the ops that ended in it,
// the bytes of the successful ones, errors by class, and encoded HDR
// histograms (microseconds, base64 V2 compressed) of successful ops'
// total latency and TTFB. Open-loop streams add Response, the latency from
// each op's intended start, and Dropped, the slots of the schedule no
// worker was free to issue (not ops: they count in neither Ops nor Errors).
// Ticks, kept for the seconds at a window's edges, split the successful
// ops and their bytes by tick.
type OpSecond struct {
	Op       string           `json:"op"`
	Ops      int64            `json:"ops"`
	Bytes    int64            `json:"bytes"`
	Errors   map[string]int64 `json:"errors,omitempty"`
	Latency  string           `json:"latency_us,omitempty"`
	TTFB     string           `json:"ttfb_us,omitempty"`
	Response string           `json:"response_us,omitempty"`
	Dropped  int64            `json:"dropped,omitempty"`
	Ticks    *Ticks           `json:"ticks,omitempty"`
}

// OK is the successful ops of the second.
func (o *OpSecond) OK() int64 {
	ok := o.Ops
	for _, n := range o.Errors {
		ok -= n
	}
	return ok
}

// TicksPerSecond is the resolution at which a step's window is placed and
// its ops counted: a window starts and ends on a tick (10 ms), and the
// seconds at its edges keep how many successful ops, and bytes, ended in
// each of their ticks. So the ops counted in a window are exactly the ops
// that ended inside it, whatever the step's length: the window's rate is
// (ops in it) / (its length), never a share of a whole second.
const TicksPerSecond = 100

// Tick is one tick's length.
const Tick = time.Second / TicksPerSecond

// Ticks is one op's successful ops and their bytes per tick of a second,
// trailing zero ticks left out.
type Ticks struct {
	OK    []int64 `json:"ok"`
	Bytes []int64 `json:"bytes"`
}

// TickCounts is one op's successful ops and their bytes per tick of one
// second, as they are counted.
type TickCounts [TicksPerSecond]struct{ OK, Bytes int64 }

// Export is the counts in a result file's form: trailing zero ticks left
// out; nil when all are zero.
func (tc *TickCounts) Export() *Ticks {
	if tc == nil {
		return nil
	}
	nOK, nBytes := 0, 0 // lengths up to the last non-zero tick
	for i, c := range tc {
		if c.OK != 0 {
			nOK = i + 1
		}
		if c.Bytes != 0 {
			nBytes = i + 1
		}
	}
	if nOK == 0 && nBytes == 0 {
		return nil
	}
	t := &Ticks{OK: make([]int64, nOK), Bytes: make([]int64, nBytes)}
	for i := range nOK {
		t.OK[i] = tc[i].OK
	}
	for i := range nBytes {
		t.Bytes[i] = tc[i].Bytes
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

// Window is the common measurement window of a stream's step, in seconds
// from the step's start: from when every worker had finished its first op
// to when the first worker stopped (closed loop), or over the schedule
// (open loop). Its start lies on a tick, and so does its end, unless the
// step ends with a file system sync: then the window ends when it returns.
type Window struct {
	Start float64 `json:"start_s"`
	End   float64 `json:"end_s"`
}

// Duration is the window's length in seconds.
func (w Window) Duration() float64 { return w.End - w.Start }

// tickIndex is the tick at or after x seconds, forgiving the rounding of
// a float that was meant to lie on a tick.
func tickIndex(x float64) int64 {
	return int64(math.Ceil(x*TicksPerSecond - 1e-6))
}

// TickSeconds is n ticks as seconds.
func TickSeconds(n int64) float64 { return float64(n) / TicksPerSecond }

// SnapWindow places a window on ticks: its start moves forward and its end
// back to the nearest tick, so it holds only whole ticks. A window that
// snaps to nothing comes back empty.
func SnapWindow(w Window) Window {
	lo := tickIndex(w.Start)
	hi := int64(math.Floor(w.End*TicksPerSecond + 1e-6))
	if hi <= lo {
		return Window{}
	}
	return Window{Start: TickSeconds(lo), End: TickSeconds(hi)}
}

// EdgeSeconds is how many seconds at each edge of a window keep their
// ticks in a result: the edges' own seconds, and enough around them that
// workers started together can be merged on a common window exactly.
const EdgeSeconds = 3

// KeepEdgeTicks drops the tick counts of every second that lies away from
// w's edges: the seconds that w covers whole need none, and a result file
// should grow with seconds, not ticks.
func KeepEdgeTicks(secs []Second, w Window) {
	lo, hi := int64(math.Floor(w.Start)), int64(math.Ceil(w.End))
	for i := range secs {
		t := secs[i].T
		if t < lo+EdgeSeconds || t >= hi-EdgeSeconds {
			continue
		}
		for j := range secs[i].Ops {
			secs[i].Ops[j].Ticks = nil
		}
	}
}
