package transfer

import (
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/objbench/objbench/result"
)

// Result is what a Run moved and how long it took.
type Result struct {
	// Transfer is the figures a result file records of it (the plan's
	// objects and bytes, what moved, the options it ran with, whole
	// objects' latency); the caller adds what the Run does not know: the
	// source's and destination's names, and the check of what the
	// destination holds (Verify).
	result.Transfer
	// Start is when the Run began; Seconds are its data requests per
	// second from then on (op PUT or GET), Phases where their time went
	// (network stores): the records a result file's stream holds.
	Start   time.Time
	Seconds []result.Second
	Phases  []result.OpPhases
	// PartLatency is the encoded HDR histogram (microseconds) of single
	// data requests (one part, one ranged GET, or the one request of a
	// small object), from the first attempt to the success.
	PartLatency string
	// Written is, for an upload, every object that finished, with the
	// ETag the store gave it: Verify checks the listing against it, a
	// manifest records it. It lives in temporary files: Close the Result
	// when done with it.
	Written *Written
}

// Close removes the files of what the Result records as Written.
func (r *Result) Close() error {
	if r == nil {
		return nil
	}
	return r.Written.Close()
}

// latencies holds the two histograms of a run. Parts finish at most a few
// hundred times a second, so one lock costs nothing worth splitting.
type latencies struct {
	mu           sync.Mutex
	object, part *hdr.Histogram
}

func newLatencies() *latencies {
	return &latencies{object: result.NewHistogram(), part: result.NewHistogram()}
}

func (l *latencies) record(h *hdr.Histogram, d time.Duration) {
	l.mu.Lock()
	_ = h.RecordValue(max(1, d.Microseconds())) // clamped range: cannot fail
	l.mu.Unlock()
}
