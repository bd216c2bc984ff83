package result

import (
	"fmt"
	"sort"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/objbench/objbench/internal/resultpack"
)

// Percentiles of one latency distribution, in microseconds.
type Percentiles struct {
	Count int64   `json:"count"`
	Avg   float64 `json:"avg_us"`
	Min   int64   `json:"min_us"`
	P25   int64   `json:"p25_us"`
	P50   int64   `json:"p50_us"`
	P75   int64   `json:"p75_us"`
	P90   int64   `json:"p90_us"`
	P99   int64   `json:"p99_us"`
	P999  int64   `json:"p99_9_us"`
	Max   int64   `json:"max_us"`
}

// OpTotal summarizes one op over one step.
type OpTotal struct {
	Op     string           `json:"op"`
	Ops    int64            `json:"ops"` // issued = OK + sum(Errors)
	OK     int64            `json:"ok"`
	Errors map[string]int64 `json:"errors,omitempty"`
	Bytes  int64            `json:"bytes"`
	// Rates over the common window only (ramp-up and ramp-down excluded).
	WindowOps   float64      `json:"window_ops"` // successful ops in the window
	WindowBytes float64      `json:"window_bytes"`
	OpsPerSec   float64      `json:"ops_per_s"`
	BytesPerSec float64      `json:"bytes_per_s"`
	Latency     Percentiles  `json:"latency"`
	TTFB        *Percentiles `json:"ttfb,omitempty"`
	// Response is the latency from each op's intended start (open loop
	// only): what a user of the store would feel, queueing included.
	Response *Percentiles `json:"response,omitempty"`
	// Dropped counts open-loop slots that found no free worker.
	Dropped     int64                `json:"dropped,omitempty"`
	LatencyHist string               `json:"-"`
	acc         [3]*resultpack.Paged // latency, TTFB, response being summed
}

// Summarize derives per-op totals from per-second records: counts over the
// whole step, rates over the window and percentiles from the merged
// histograms. The window's ops are those that ended inside it: the seconds
// it covers whole count whole, its edge seconds by their ticks (pro rata
// only where a record has no ticks: files from before ticks, or a merged
// window edge far from a worker's own).
func Summarize(secs []Second, w Window) ([]OpTotal, error) {
	sum := NewSummary(w)
	for _, s := range secs {
		for i := range s.Ops {
			if err := sum.Add(s.T, &s.Ops[i]); err != nil {
				return nil, err
			}
		}
	}
	return sum.Totals(), nil
}

// Summary is Summarize fed one record at a time, for a reader that does
// not hold a stream's seconds whole (a merge).
type Summary struct {
	w      Window
	lo, hi int64 // the window's ticks
	byOp   map[string]*OpTotal
	codec  resultpack.Codec
}

// NewSummary is an empty summary of a stream whose window is w.
func NewSummary(w Window) *Summary {
	return &Summary{w: w, lo: tickIndex(w.Start), hi: tickIndex(w.End), byOp: map[string]*OpTotal{}}
}

// Add counts o, second t's record, and adds its histograms.
func (s *Summary) Add(t int64, o *OpSecond) error {
	tot := s.addCounts(t, o)
	for k, enc := range [3]string{o.Latency, o.TTFB, o.Response} {
		if err := s.addHist(tot, k, enc); err != nil {
			return fmt.Errorf("second %d, op %s: %w", t, o.Op, err)
		}
	}
	return nil
}

// AddCounts counts o, second t's record, as Add does, but leaves its
// histograms out: for a reader that sums them itself and gives them to
// AddHistograms.
func (s *Summary) AddCounts(t int64, o *OpSecond) { s.addCounts(t, o) }

// addCounts is AddCounts, returning o's op's totals so far.
func (s *Summary) addCounts(t int64, o *OpSecond) *OpTotal {
	tot := s.op(o.Op)
	tot.Ops += o.Ops
	tot.Bytes += o.Bytes
	tot.Dropped += o.Dropped
	var errs int64
	for c, n := range o.Errors {
		if tot.Errors == nil {
			tot.Errors = map[string]int64{}
		}
		tot.Errors[c] += n
		errs += n
	}
	tot.OK += o.Ops - errs
	ok, bytes := inWindow(t, *o, s.lo, s.hi)
	tot.WindowOps += ok
	tot.WindowBytes += bytes
	return tot
}

// AddHistograms adds op's latency, TTFB and response histograms (as a
// second's records hold them: "" for none) to its totals.
func (s *Summary) AddHistograms(op string, latency, ttfb, response string) error {
	tot := s.op(op)
	for k, enc := range [3]string{latency, ttfb, response} {
		if err := s.addHist(tot, k, enc); err != nil {
			return fmt.Errorf("op %s: %w", op, err)
		}
	}
	return nil
}

// Merge adds what o summed (records of the same stream) to s.
func (s *Summary) Merge(o *Summary) error {
	for op, t := range o.byOp {
		tot := s.byOp[op]
		if tot == nil {
			s.byOp[op] = t
			continue
		}
		tot.AddCounts(t)
		for k := range tot.acc {
			if tot.acc[k] == nil {
				tot.acc[k] = t.acc[k]
			} else if err := tot.acc[k].Merge(t.acc[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

// Totals is the totals of every op, in the order tables list ops: rates
// over the window, percentiles of the histograms added. s is spent.
func (s *Summary) Totals() []OpTotal {
	out := make([]OpTotal, 0, len(s.byOp))
	for _, t := range s.byOp {
		t.finish(s.w.Duration())
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool { return opOrder(out[i].Op) < opOrder(out[j].Op) })
	return out
}

// op is op's totals, made when it is the first.
func (s *Summary) op(op string) *OpTotal {
	tot := s.byOp[op]
	if tot == nil {
		tot = &OpTotal{Op: op}
		s.byOp[op] = tot
	}
	return tot
}

// addHist adds the histogram enc ("": none; packed, or V2 text) to tot's
// histogram k (latency, TTFB, response).
func (s *Summary) addHist(tot *OpTotal, k int, enc string) error {
	if enc == "" {
		return nil
	}
	if tot.acc[k] == nil {
		tot.acc[k] = &resultpack.Paged{}
	}
	return tot.acc[k].AddText(enc, &s.codec)
}

// AddCounts adds u's counts to t: ops, successes, bytes, drops, the
// window's ops and bytes, errors by class. Rates, percentiles and
// histograms are not counts: the caller recomputes or merges them.
func (t *OpTotal) AddCounts(u *OpTotal) {
	t.Ops, t.OK, t.Bytes, t.Dropped = t.Ops+u.Ops, t.OK+u.OK, t.Bytes+u.Bytes, t.Dropped+u.Dropped
	t.WindowOps, t.WindowBytes = t.WindowOps+u.WindowOps, t.WindowBytes+u.WindowBytes
	for c, n := range u.Errors {
		if t.Errors == nil {
			t.Errors = map[string]int64{}
		}
		t.Errors[c] += n
	}
}

// inWindow is how many of o's successful ops, and their bytes, ended in
// the ticks lo..hi-1 of the step, o being second t's record.
func inWindow(t int64, o OpSecond, lo, hi int64) (ok, bytes float64) {
	first := t * TicksPerSecond
	from, to := max(lo, first), min(hi, first+TicksPerSecond)
	okOps := o.Answered()
	switch {
	case to <= from:
		return 0, 0
	case from == first && to == first+TicksPerSecond:
		return float64(okOps), float64(o.Bytes)
	case o.Ticks != nil:
		k, b := o.Ticks.sum(int(from-first), int(to-first))
		return float64(k), float64(b)
	}
	share := float64(to-from) / TicksPerSecond
	return float64(okOps) * share, float64(o.Bytes) * share
}

// CompareOps orders op names as tables list them (PUT, GET, STAT,
// DELETE, ...; other names after those), for slices.SortFunc.
func CompareOps(a, b string) int { return opOrder(a) - opOrder(b) }

// opOrder is the order tables list ops in.
func opOrder(name string) int {
	for i, n := range []string{"PUT", "GET", "STAT", "DELETE", "LIST", "MULTIPART", "RANGE-GET", "COPY", "PART-COPY", "DELETE-BATCH", "LIST-VERSIONS", "CAS"} {
		if n == name {
			return i
		}
	}
	return 1 << 10
}

func (t *OpTotal) finish(window float64) {
	if window > 0 {
		t.OpsPerSec = t.WindowOps / window
		t.BytesPerSec = t.WindowBytes / window
	}
	t.Latency = pagedPercentiles(t.acc[0])
	if t.acc[1] != nil {
		p := pagedPercentiles(t.acc[1])
		t.TTFB = &p
	}
	if t.acc[2] != nil {
		p := pagedPercentiles(t.acc[2])
		t.Response = &p
	}
	t.LatencyHist = ""
	if lat := t.acc[0]; lat != nil && !lat.Empty() {
		// In the packed form, which costs what the histogram holds: the
		// V2 form compresses all 184 KiB of the dense one.
		var w resultpack.SplitWriter
		t.LatencyHist, _, _ = lat.Pack(&w, nil, nil)
	}
	t.acc = [3]*resultpack.Paged{}
}

// pagedPercentiles summarizes a histogram being summed (nil: zero).
func pagedPercentiles(h *resultpack.Paged) Percentiles { return Percentiles(h.Percentiles()) }

// PercentilesOf summarizes a latency histogram (microseconds).
func PercentilesOf(h *hdr.Histogram) Percentiles { return percentiles(h) }

func percentiles(h *hdr.Histogram) Percentiles {
	if h == nil || h.TotalCount() == 0 {
		return Percentiles{}
	}
	return Percentiles{
		Count: h.TotalCount(), Avg: h.Mean(), Min: h.Min(),
		P25: h.ValueAtQuantile(25), P50: h.ValueAtQuantile(50), P75: h.ValueAtQuantile(75),
		P90: h.ValueAtQuantile(90), P99: h.ValueAtQuantile(99), P999: h.ValueAtQuantile(99.9),
		Max: h.Max(),
	}
}
