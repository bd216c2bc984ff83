package metrics

import (
	"time"

	"github.com/objbench/objbench/result"
)

// tickCounts is one op's successful ops and their bytes per tick of a
// second (result.TicksPerSecond).
type tickCounts [result.TicksPerSecond]struct{ ok, bytes int64 }

// tickOf is the tick of its second in which an instant at (after the
// series start) falls.
func tickOf(at time.Duration) int {
	return int(at % time.Second / result.Tick)
}

// export is the result file's form of the counts: trailing zero ticks left
// out; nil when all are zero.
func (tc *tickCounts) export() *result.Ticks {
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
	t := &result.Ticks{OK: make([]int64, nOK), Bytes: make([]int64, nBytes)}
	for i := range nOK {
		t.OK[i] = tc[i].ok
	}
	for i := range nBytes {
		t.Bytes[i] = tc[i].bytes
	}
	return t
}
