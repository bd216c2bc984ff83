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
	Dropped             int64  `json:"dropped,omitempty"`
	LatencyHist         string `json:"-"`
	mergedLat, ttf, rsp *hdr.Histogram
}

// Summarize derives per-op totals from per-second records: counts over the
// whole step, rates over the window and percentiles from the merged
// histograms. The window's ops are those that ended inside it: the seconds
// it covers whole count whole, its edge seconds by their ticks (pro rata
// only where a record has no ticks: files from before ticks, or a merged
// window edge far from a worker's own).
func Summarize(secs []Second, w Window) ([]OpTotal, error) {
	lo, hi := tickIndex(w.Start), tickIndex(w.End)
	byOp := map[string]*OpTotal{}
	var codec histCodec
	for _, s := range secs {
		for _, o := range s.Ops {
			t := byOp[o.Op]
			if t == nil {
				t = &OpTotal{Op: o.Op}
				byOp[o.Op] = t
			}
			if err := t.add(o, &codec); err != nil {
				return nil, fmt.Errorf("second %d, op %s: %w", s.T, o.Op, err)
			}
			ok, bytes := inWindow(s.T, o, lo, hi)
			t.WindowOps += ok
			t.WindowBytes += bytes
		}
	}
	out := make([]OpTotal, 0, len(byOp))
	for _, t := range byOp {
		t.finish(w.Duration())
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool { return opOrder(out[i].Op) < opOrder(out[j].Op) })
	return out, nil
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

func (t *OpTotal) add(o OpSecond, c *histCodec) error {
	t.Ops += o.Ops
	t.Bytes += o.Bytes
	t.Dropped += o.Dropped
	var errs int64
	for c, n := range o.Errors {
		if t.Errors == nil {
			t.Errors = map[string]int64{}
		}
		t.Errors[c] += n
		errs += n
	}
	t.OK += o.Ops - errs
	if err := c.addEncoded(&t.mergedLat, o.Latency); err != nil {
		return err
	}
	if err := c.addEncoded(&t.ttf, o.TTFB); err != nil {
		return err
	}
	return c.addEncoded(&t.rsp, o.Response)
}

func (t *OpTotal) finish(window float64) {
	if window > 0 {
		t.OpsPerSec = t.WindowOps / window
		t.BytesPerSec = t.WindowBytes / window
	}
	t.Latency = percentiles(t.mergedLat)
	if t.ttf != nil {
		p := percentiles(t.ttf)
		t.TTFB = &p
	}
	if t.rsp != nil {
		p := percentiles(t.rsp)
		t.Response = &p
	}
	t.LatencyHist = EncodeHistogram(t.mergedLat)
	t.mergedLat, t.ttf, t.rsp = nil, nil, nil
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
