package transfer

import (
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/objbench/objbench/result"
)

// Result is what a Run moved and how long it took.
type Result struct {
	// Start is when the Run began; Seconds are its data requests per
	// second from then on (op PUT or GET), Phases where their time went
	// (network stores): the records a result file's stream holds.
	Start   time.Time         `json:"-"`
	Seconds []result.Second   `json:"-"`
	Phases  []result.OpPhases `json:"-"`

	Download        bool          `json:"download"`
	Objects         int64         `json:"objects"`
	Bytes           int64         `json:"bytes"`
	Parts           int64         `json:"parts"`
	Retries         int64         `json:"retries"`
	Wall            time.Duration `json:"wall_ns"`
	PartSize        int64         `json:"part_size"`
	PartConcurrency int           `json:"part_concurrency"`
	Workers         int           `json:"workers"`
	// Object is the latency of whole objects (first request to last
	// answer), Part of single data requests (one part, one ranged GET, or
	// the one request of a small object), from the first attempt to the
	// success.
	Object Latency `json:"object_latency"`
	Part   Latency `json:"part_latency"`
	// Written is, for an upload, every object that finished, with the
	// ETag the store gave it: Verify checks the listing against it, a
	// manifest records it. It lives in temporary files: Close the Result
	// when done with it.
	Written *Written `json:"-"`
}

// Close removes the files of what the Result records as Written.
func (r *Result) Close() error {
	if r == nil {
		return nil
	}
	return r.Written.Close()
}

// Latency summarizes one HDR histogram (microsecond resolution).
type Latency struct {
	Count int64         `json:"count"`
	P50   time.Duration `json:"p50_ns"`
	P90   time.Duration `json:"p90_ns"`
	P99   time.Duration `json:"p99_ns"`
	Max   time.Duration `json:"max_ns"`
	// Histogram is the encoded HDR histogram (microseconds), to merge or
	// re-read exactly.
	Histogram string `json:"histogram,omitempty"`
}

// latencies holds the two histograms of a run. Parts finish at most a few
// hundred times a second, so one lock costs nothing worth splitting.
type latencies struct {
	mu           sync.Mutex
	object, part *hdr.Histogram
}

func newLatencies() *latencies {
	// 1 µs .. 1 h, 3 significant digits, as in metrics.
	return &latencies{object: hdr.New(1, int64(time.Hour/time.Microsecond), 3),
		part: hdr.New(1, int64(time.Hour/time.Microsecond), 3)}
}

func (l *latencies) record(h *hdr.Histogram, d time.Duration) {
	l.mu.Lock()
	_ = h.RecordValue(max(1, d.Microseconds())) // clamped range: cannot fail
	l.mu.Unlock()
}

func summarize(h *hdr.Histogram) Latency {
	us := func(q float64) time.Duration { return time.Duration(h.ValueAtQuantile(q)) * time.Microsecond }
	l := Latency{Count: h.TotalCount(), P50: us(50), P90: us(90), P99: us(99),
		Max: time.Duration(h.Max()) * time.Microsecond}
	if enc, err := h.Encode(hdr.V2CompressedEncodingCookieBase); err == nil {
		l.Histogram = string(enc)
	}
	return l
}
