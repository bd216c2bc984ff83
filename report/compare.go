package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/objbench/objbench/result"
)

// Metric is one quantity Compare sets side by side.
type Metric int

// The compared metrics.
const (
	// MetricThroughput is bytes per second, or ops per second for ops
	// that move no bytes (STAT, DELETE, LIST), so it means "how much work
	// got done" for every op.
	MetricThroughput Metric = iota
	MetricOps               // ops per second
	MetricP50               // latency percentiles
	MetricP90
	MetricP99
	MetricP999
	MetricMax
	MetricErrors // errors per op issued: runs of different lengths compare fairly
	NumMetrics   // count of metrics, not a metric
)

var metricNames = [NumMetrics]string{"throughput", "ops", "p50", "p90", "p99", "p99.9", "max", "errors"}

func (m Metric) String() string {
	if m >= 0 && m < NumMetrics {
		return metricNames[m]
	}
	return fmt.Sprintf("metric(%d)", int(m))
}

// ParseMetric accepts a metric name in any case.
func ParseMetric(s string) (Metric, error) {
	for i, n := range metricNames {
		if strings.EqualFold(s, n) {
			return Metric(i), nil
		}
	}
	return 0, fmt.Errorf("unknown metric %q (want %s)", s, strings.Join(metricNames[:], ", "))
}

// Significance says whether a change is more than noise.
type Significance int

// Verdicts on a change.
const (
	NotSignificant Significance = iota
	Significant
	Untested // too few samples for the rule, or no test exists (max)
)

// The significance rules; docs/reports-and-compare.md, "Comparing runs",
// explains them.
const (
	// Throughput: Mann-Whitney U on per-second samples of the common
	// window, with at least minSeconds whole seconds a side.
	minSeconds = 5
	alpha      = 0.05
	// A change smaller than this is noise whatever a test says: a
	// benchmark cannot promise better, and a long run makes any
	// difference "significant".
	minChangePct = 2.0
	// Percentiles: at least minTail samples above the percentile in both
	// runs, and disjoint distribution-free 95% confidence intervals: the
	// values at ranks n*q ± 1.96*sqrt(n*q*(1-q)) of each run's merged
	// histogram, widened to their HDR buckets' edges. Two disjoint 95%
	// intervals are a conservative test (p well below 0.05).
	minTail = 10
	zCI     = 1.96
)

// Change is one metric of one run against the base run.
type Change struct {
	Base, Value float64
	// Pct is the change in percent; ±Inf when Base is 0 and Value is
	// not, 0 when both are.
	Pct float64
	Sig Significance
	P   float64 // the test's p-value, where a test was made
	// Method is how a rate was tested ("repetitions", "batch means"),
	// Batch the batch means' length in seconds and N1, N2 the samples a
	// side; empty for other metrics.
	Method string
	Batch  int
	N1, N2 int
}

// OpRun is one op of one stream of one step in one run.
type OpRun struct {
	// Total is the op over every repetition of the step: counts summed,
	// rates over the sum of the windows, percentiles of the merged
	// latencies.
	Total       result.OpTotal
	Concurrency int
	// Per-second samples over the whole seconds of the common window,
	// one series per repetition.
	OpsPerSec, BytesPerSec [][]float64
	// Each repetition's window rates.
	RepOpsPerSec, RepBytesPerSec []float64
	// Each repetition's latency percentiles.
	RepLatency []result.Percentiles
	window     float64        // the windows' sum, in seconds
	lat        *hdr.Histogram // merged latency, nil without successes
}

// CompareRow is one op of one stream of one step across the runs.
type CompareRow struct {
	Stage  string // with the sweep's values, as the table shows it
	Step   int
	Stream string
	Op     string
	// Runs[0] is the base run; nil where a run has no such row.
	Runs []*OpRun
	// Changes[i] compares Runs[i+1] with Runs[0]; zero when either is nil.
	Changes [][NumMetrics]Change
}

// Label names the row as a reader finds it in the table: the stage (with
// its sweep values), the stream when it has its own name, the op and the
// step's concurrency.
func (r *CompareRow) Label() string {
	l := r.Stage
	if r.Stream != "" && r.Stream != r.Stage {
		l += " " + r.Stream
	}
	l += " " + r.Op
	for _, run := range r.Runs {
		if run != nil {
			return l + " conc " + strconv.Itoa(run.Concurrency)
		}
	}
	return l
}

// Comparison is runs set side by side, row by row.
type Comparison struct {
	Labels      []string // one per run, base first
	Rows        []CompareRow
	MultiStream bool
}

type rowKey struct {
	stage  string
	step   int
	stream string
	op     string
}

// Compare matches the rows of other runs to the base run's by stage, step
// index, stream name and op, and computes every change with its
// significance. Labels default to the runs' IDs.
func Compare(base *result.Run, others ...*result.Run) *Comparison {
	runs := append([]*result.Run{base}, others...)
	c := &Comparison{}
	index := map[rowKey]int{}
	for i, r := range runs {
		label := r.RunID
		if p := r.Partial(); p != "" {
			label += " (partial " + p + ")"
		}
		c.Labels = append(c.Labels, label)
		c.MultiStream = c.MultiStream || multiStream(r)
		for _, x := range rows(r) {
			k := rowKey{x.step.Stage, x.step.Step, x.stream.Name, x.t.Op}
			j, ok := index[k]
			if !ok {
				j = len(c.Rows)
				index[k] = j
				c.Rows = append(c.Rows, CompareRow{Stage: stepName(x.step), Step: x.step.Step,
					Stream: x.stream.Name, Op: x.t.Op, Runs: make([]*OpRun, len(runs))})
			}
			if prev := c.Rows[j].Runs[i]; prev != nil {
				prev.addRepetition(newOpRun(x.stream, x.t)) // --repeat: another run of the step
			} else {
				c.Rows[j].Runs[i] = newOpRun(x.stream, x.t)
			}
		}
	}
	for i := range c.Rows {
		row := &c.Rows[i]
		row.Changes = make([][NumMetrics]Change, len(others))
		for j := range others {
			if b, o := row.Runs[0], row.Runs[j+1]; b != nil && o != nil {
				row.Changes[j] = compareOp(b, o)
			}
		}
	}
	return c
}

func newOpRun(s *result.Stream, t result.OpTotal) *OpRun {
	r := &OpRun{Total: t, Concurrency: s.Concurrency, window: s.Window.Duration(),
		RepOpsPerSec: []float64{t.OpsPerSec}, RepBytesPerSec: []float64{t.BytesPerSec}, RepLatency: []result.Percentiles{t.Latency}}
	if t.LatencyHist != "" {
		r.lat, _ = result.DecodeHistogram(t.LatencyHist) // Summarize just encoded it
	}
	lo, hi := int64(math.Ceil(s.Window.Start)), int64(math.Floor(s.Window.End))
	if hi <= lo {
		r.OpsPerSec, r.BytesPerSec = [][]float64{nil}, [][]float64{nil}
		return r
	}
	ops := make([]float64, hi-lo) // a second without the op did none of it
	bytes := make([]float64, hi-lo)
	for _, sec := range s.Seconds {
		if sec.T < lo || sec.T >= hi {
			continue
		}
		for _, o := range sec.Ops {
			if o.Op == t.Op {
				ops[sec.T-lo] += float64(o.Ops)
				bytes[sec.T-lo] += float64(o.Bytes)
			}
		}
	}
	r.OpsPerSec, r.BytesPerSec = [][]float64{ops}, [][]float64{bytes}
	return r
}

// addRepetition adds another repetition of the step to r: counts add,
// rates are the windows' ops over the windows' seconds, latencies merge.
func (r *OpRun) addRepetition(o *OpRun) {
	t := &r.Total
	t.AddCounts(&o.Total)
	r.window += o.window
	if r.window > 0 {
		t.OpsPerSec, t.BytesPerSec = t.WindowOps/r.window, t.WindowBytes/r.window
	}
	switch {
	case o.lat == nil:
	case r.lat == nil:
		r.lat = o.lat
	default:
		r.lat.Merge(o.lat)
	}
	if r.lat != nil {
		t.Latency = result.PercentilesOf(r.lat)
		t.LatencyHist = result.EncodeHistogram(r.lat)
	}
	r.OpsPerSec, r.BytesPerSec = append(r.OpsPerSec, o.OpsPerSec...), append(r.BytesPerSec, o.BytesPerSec...)
	r.RepOpsPerSec, r.RepBytesPerSec = append(r.RepOpsPerSec, o.RepOpsPerSec...), append(r.RepBytesPerSec, o.RepBytesPerSec...)
	r.RepLatency = append(r.RepLatency, o.RepLatency...)
	r.Concurrency = max(r.Concurrency, o.Concurrency)
}

func compareOp(b, o *OpRun) [NumMetrics]Change {
	var out [NumMetrics]Change
	out[MetricOps] = rateChange(b.Total.OpsPerSec, o.Total.OpsPerSec, rateSamples{b.RepOpsPerSec, b.OpsPerSec}, rateSamples{o.RepOpsPerSec, o.OpsPerSec})
	if b.Total.Bytes > 0 || o.Total.Bytes > 0 {
		out[MetricThroughput] = rateChange(b.Total.BytesPerSec, o.Total.BytesPerSec,
			rateSamples{b.RepBytesPerSec, b.BytesPerSec}, rateSamples{o.RepBytesPerSec, o.BytesPerSec})
	} else {
		out[MetricThroughput] = out[MetricOps]
	}
	bl, ol := b.Total.Latency, o.Total.Latency
	for _, q := range []struct {
		m         Metric
		quantile  float64
		base, val int64
		of        func(result.Percentiles) int64
	}{
		{MetricP50, 0.5, bl.P50, ol.P50, func(p result.Percentiles) int64 { return p.P50 }},
		{MetricP90, 0.9, bl.P90, ol.P90, func(p result.Percentiles) int64 { return p.P90 }},
		{MetricP99, 0.99, bl.P99, ol.P99, func(p result.Percentiles) int64 { return p.P99 }},
		{MetricP999, 0.999, bl.P999, ol.P999, func(p result.Percentiles) int64 { return p.P999 }},
	} {
		if len(b.RepLatency) >= 2 && len(o.RepLatency) >= 2 {
			// Repetitions: each one's percentile is a sample, as for rates;
			// a run's latencies come in bursts, so its own samples are not
			// independent either.
			out[q.m] = repChange(float64(q.base), float64(q.val), repValues(b.RepLatency, q.of), repValues(o.RepLatency, q.of))
			continue
		}
		out[q.m] = percentileChange(float64(q.base), float64(q.val), q.quantile, b.lat, o.lat)
	}
	out[MetricMax] = Change{Base: float64(bl.Max), Value: float64(ol.Max), Pct: pct(float64(bl.Max), float64(ol.Max)), Sig: Untested}
	out[MetricErrors] = errorChange(b.Total, o.Total)
	return out
}

func pct(base, v float64) float64 {
	switch {
	case base == v:
		return 0
	case base == 0:
		return math.Inf(int(math.Copysign(1, v)))
	}
	return (v - base) / base * 100
}

func rateChange(base, v float64, bs, vs rateSamples) Change {
	c := Change{Base: base, Value: v, Pct: pct(base, v)}
	var how rateTest
	c.P, c.Sig, how = testRates(bs, vs)
	c.Method, c.Batch, c.N1, c.N2 = how.method, how.batch, how.n1, how.n2
	if c.Sig == NotSignificant && c.P < alpha && math.Abs(c.Pct) >= minChangePct {
		c.Sig = Significant
	}
	return c
}

func repValues(ps []result.Percentiles, of func(result.Percentiles) int64) []float64 {
	out := make([]float64, len(ps))
	for i, p := range ps {
		out[i] = float64(of(p))
	}
	return out
}

// repChange tests a change over repetitions' values, as rates are.
func repChange(base, v float64, bs, vs []float64) Change {
	return rateChange(base, v, rateSamples{reps: bs}, rateSamples{reps: vs})
}

func percentileChange(base, v, quantile float64, hb, hv *hdr.Histogram) Change {
	c := Change{Base: base, Value: v, Pct: pct(base, v), Sig: Untested}
	tail := func(h *hdr.Histogram) float64 { return float64(h.TotalCount()) * (1 - quantile) }
	if hb == nil || hv == nil || tail(hb) < minTail || tail(hv) < minTail {
		return c
	}
	c.Sig = NotSignificant
	bLo, bHi := quantileCI(hb, quantile)
	vLo, vHi := quantileCI(hv, quantile)
	if (vLo > bHi || vHi < bLo) && math.Abs(c.Pct) >= minChangePct {
		c.Sig = Significant
	}
	return c
}

// quantileCI is the distribution-free 95% confidence interval of the
// quantile q (0..1) of h, widened to the HDR buckets holding its rank
// bounds: ValueAtQuantile gives a bucket's highest value, and a bucket is
// at most 1 part in 1,000 wide (3 significant digits) or 1 µs.
func quantileCI(h *hdr.Histogram, q float64) (lo, hi float64) {
	half := zCI * math.Sqrt(q*(1-q)/float64(h.TotalCount()))
	l := h.ValueAtQuantile(100 * max(0, q-half))
	u := h.ValueAtQuantile(100 * min(1, q+half))
	return float64(l) - max(1, float64(l)/1000), float64(u)
}

// errorChange compares error ratios with a two-proportion z-test.
func errorChange(b, o result.OpTotal) Change {
	if b.Ops == 0 || o.Ops == 0 {
		return Change{Sig: Untested}
	}
	eb, eo := float64(Failures(b)), float64(Failures(o)) // 412, 304 and not implemented are outcomes, not failures
	nb, no := float64(b.Ops), float64(o.Ops)
	c := Change{Base: eb / nb, Value: eo / no}
	c.Pct = pct(c.Base, c.Value)
	pooled := (eb + eo) / (nb + no)
	se := math.Sqrt(pooled * (1 - pooled) * (1/nb + 1/no))
	c.P = 1
	if se > 0 {
		c.P = math.Erfc(math.Abs(c.Value-c.Base) / se / math.Sqrt2)
	}
	if c.P < alpha {
		c.Sig = Significant
	}
	return c
}
