package result

import (
	"fmt"
	"sort"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
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
	Dropped     int64         `json:"dropped,omitempty"`
	LatencyHist string        `json:"-"`
	acc         [3]*pagedHist // latency, TTFB, response being summed
}

// Summarize derives per-op totals from per-second records: counts over the
// whole step, rates over the window and percentiles from the merged
// histograms. The window's ops are those that ended inside it: the seconds
// it covers whole count whole, its edge seconds by their ticks (pro rata
// only where a record has no ticks: files from before ticks, or a merged
// window edge far from a worker's own).
func Summarize(secs []Second, w Window) ([]OpTotal, error) {
	sum := newSummarizer(w, false)
	for _, s := range secs {
		for i := range s.Ops {
			if err := sum.add(s.T, &s.Ops[i], nil); err != nil {
				return nil, err
			}
		}
	}
	return sum.totals(w), nil
}

// summarizer is Summarize fed one record at a time.
type summarizer struct {
	lo, hi int64
	byOp   map[string]*OpTotal
	// latencyOnly leaves TTFB and response out (a merge's parts need
	// only their counts and latency).
	latencyOnly bool
	// noHists: the caller adds the latencies itself (latency).
	noHists bool
	codec   histCodec
	sparse  sparseHist
}

func newSummarizer(w Window, latencyOnly bool) *summarizer {
	return &summarizer{lo: tickIndex(w.Start), hi: tickIndex(w.End), byOp: map[string]*OpTotal{}, latencyOnly: latencyOnly}
}

// add counts o, second t's record; hists are its histograms when it
// comes packed (nil: o's strings).
func (s *summarizer) add(t int64, o *OpSecond, hists *packedHists) error {
	tot := s.byOp[o.Op]
	if tot == nil {
		tot = &OpTotal{Op: o.Op}
		s.byOp[o.Op] = tot
	}
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
	kinds := 3
	if s.latencyOnly {
		kinds = 1
	}
	if s.noHists {
		kinds = 0
	}
	for k := range kinds {
		if err := addHist(&tot.acc[k], o, k, hists, &s.codec, &s.sparse); err != nil {
			return fmt.Errorf("second %d, op %s: %w", t, o.Op, err)
		}
	}
	ok, bytes := inWindow(t, *o, s.lo, s.hi)
	tot.WindowOps += ok
	tot.WindowBytes += bytes
	return nil
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

// latency is op's latency being summed, made when it is the first.
func (s *summarizer) latency(op string) *pagedHist {
	tot := s.byOp[op]
	if tot == nil {
		tot = &OpTotal{Op: op}
		s.byOp[op] = tot
	}
	if tot.acc[0] == nil {
		tot.acc[0] = &pagedHist{}
	}
	return tot.acc[0]
}

// merge adds what o summed (records of the same stream) to s.
func (s *summarizer) merge(o *summarizer) error {
	for op, t := range o.byOp {
		tot := s.byOp[op]
		if tot == nil {
			s.byOp[op] = t
			continue
		}
		tot.AddCounts(t)
		for k := range tot.acc {
			if err := tot.acc[k].merge(t.acc[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *summarizer) totals(w Window) []OpTotal {
	out := make([]OpTotal, 0, len(s.byOp))
	for _, t := range s.byOp {
		t.finish(w.Duration())
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool { return opOrder(out[i].Op) < opOrder(out[j].Op) })
	return out
}

// addHist adds o's histogram k (latency, TTFB, response) to *acc, made
// when it is the first: from hists[k] when the record came packed, else
// from o's string (packed, or V2 text).
func addHist(acc **pagedHist, o *OpSecond, k int, hists *packedHists, c *histCodec, sp *sparseHist) error {
	if hists != nil {
		if hists.b[k] == nil {
			return nil
		}
		if *acc == nil {
			*acc = &pagedHist{}
		}
		return addPackedTo(*acc, nil, hists.b[k], hists.split)
	}
	enc := [3]string{o.Latency, o.TTFB, o.Response}[k]
	if enc == "" {
		return nil
	}
	if *acc == nil {
		*acc = &pagedHist{}
	}
	if isPacked(enc) {
		return addPackedTo(*acc, nil, []byte(enc[len(packedTag):]), enc[:len(splitTag)] == splitTag)
	}
	if err := c.decode(enc, sp); err != nil {
		return histError(err)
	}
	return (*acc).addSparse(sp)
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
	t.Latency = t.acc[0].percentiles()
	if t.acc[1] != nil {
		p := t.acc[1].percentiles()
		t.TTFB = &p
	}
	if t.acc[2] != nil {
		p := t.acc[2].percentiles()
		t.Response = &p
	}
	t.LatencyHist = ""
	if lat := t.acc[0]; lat != nil && !lat.empty() {
		// In the packed form, which costs what the histogram holds: the
		// V2 form compresses all 184 KiB of the dense one.
		var w splitWriter
		t.LatencyHist, _, _ = lat.pack(&w, nil, nil)
	}
	t.acc = [3]*pagedHist{}
}

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
