package ai

import (
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/objbench/objbench/result"
)

// auMeter measures one accelerator's epoch as DLIO's statistics do
// (utils/statscounter.py): each step's load time runs from when the
// accelerator began to wait for its batch to when the batch came, its
// computation from then to when the computation ended; the AU is the
// computation of every step but the first over the epoch's wall time
// less the first step's load and computation. Waits at the barrier after
// a step count in the wall time, not in a step's.
type auMeter struct {
	start   time.Time
	steps   int
	proc0   time.Duration // the first step's load and computation
	compute time.Duration // of the steps after the first
	wait    *hdr.Histogram
}

func newAUMeter(start time.Time) *auMeter {
	return &auMeter{start: start, wait: result.NewHistogram()}
}

// step records a step: when the accelerator began to wait for the batch,
// when the batch came, and when its computation ended.
func (m *auMeter) step(waitFrom, loaded, computed time.Time) {
	m.steps++
	if m.steps == 1 {
		m.proc0 = computed.Sub(waitFrom)
		return
	}
	m.compute += computed.Sub(loaded)
	_ = m.wait.RecordValue(max(loaded.Sub(waitFrom).Microseconds(), 0))
}

// finish is the epoch's record, ended at end.
func (m *auMeter) finish(end time.Time) result.Loader {
	l := result.Loader{Steps: m.steps, Compute: m.compute, Elapsed: end.Sub(m.start), Wait: result.EncodeHistogram(m.wait)}
	if m.steps > 1 {
		l.Wall = l.Elapsed - m.proc0
	}
	return l
}
