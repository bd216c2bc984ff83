package metrics

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
// whole step, rates over the window (edge seconds counted pro rata) and
// percentiles from the merged histograms.
func Summarize(secs []Second, w Window) ([]OpTotal, error) {
	byOp := map[string]*OpTotal{}
	for _, s := range secs {
		share := overlap(float64(s.T), float64(s.T+1), w.Start, w.End)
		for _, o := range s.Ops {
			t := byOp[o.Op]
			if t == nil {
				t = &OpTotal{Op: o.Op}
				byOp[o.Op] = t
			}
			if err := t.add(o, share); err != nil {
				return nil, fmt.Errorf("second %d, op %s: %w", s.T, o.Op, err)
			}
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

func opOrder(name string) int {
	if op, err := ParseOp(name); err == nil {
		return int(op)
	}
	return int(NumOps)
}

func (t *OpTotal) add(o OpSecond, share float64) error {
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
	// Rates count successful ops only: a store answering 503 quickly must
	// not look fast. Failed ops are in Errors.
	t.WindowOps += float64(o.Ops-errs) * share
	t.WindowBytes += float64(o.Bytes) * share
	var err error
	if t.mergedLat, err = mergeEncoded(t.mergedLat, o.Latency); err != nil {
		return err
	}
	if t.ttf, err = mergeEncoded(t.ttf, o.TTFB); err != nil {
		return err
	}
	t.rsp, err = mergeEncoded(t.rsp, o.Response)
	return err
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
	t.LatencyHist = encode(t.mergedLat)
	t.mergedLat, t.ttf, t.rsp = nil, nil, nil
}

func mergeEncoded(dst *hdr.Histogram, enc string) (*hdr.Histogram, error) {
	if enc == "" {
		return dst, nil
	}
	h, err := hdr.Decode([]byte(enc))
	if err != nil {
		return dst, fmt.Errorf("decode histogram: %w", err)
	}
	if dst == nil {
		return h, nil
	}
	dst.Merge(h)
	return dst, nil
}

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

// overlap is the fraction of [a,b) that lies inside [lo,hi).
func overlap(a, b, lo, hi float64) float64 {
	l, h := max(a, lo), min(b, hi)
	if h <= l {
		return 0
	}
	return (h - l) / (b - a)
}
