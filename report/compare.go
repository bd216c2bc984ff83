package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

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

// Change is one metric of one side against the base side.
type Change struct {
	// Base and Value are the sides' values: the median of their runs'.
	Base, Value float64
	// Pct is the change in percent; ±Inf when Base is 0 and Value is
	// not, 0 when both are.
	Pct float64
	Sig Significance
	P   float64 // the U test's p-value, where a test was made (else 1)
	// Lo and Hi bound the change, in percent of Base, with at least 95%
	// confidence (the shift's interval that goes with the U test); NaN
	// where there is none.
	Lo, Hi float64
	// N1 and N2 are the runs a side the change was tested over.
	N1, N2 int
}

// OpRun is one op of one stream of one step on one side of a comparison:
// each of the side's runs that has the row, and the side's figures.
type OpRun struct {
	// Total is the side's figures: counts summed over its runs, rates and
	// latency percentiles the median of its runs' (with one run, its
	// own), Max the largest.
	Total       result.OpTotal
	Concurrency int
	// PerRun is each run's figures over its repetitions of the step
	// (--repeat: counts summed, rates over the windows' sum, percentiles of
	// the merged latencies): the samples a change is tested over.
	PerRun []result.OpTotal
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

// Comparison is sides set side by side, row by row: a side is one or more
// runs of the same thing, the base side first.
type Comparison struct {
	Labels      []string // one per side, base first
	Runs        []int    // the runs of each side
	Rows        []CompareRow
	MultiStream bool
}

type rowKey struct {
	stage  string
	step   int
	stream string
	op     string
}

// Compare compares runs of one run a side: the other runs' against the
// base's (CompareSides).
func Compare(base *result.Run, others ...*result.Run) *Comparison {
	sides := [][]*result.Run{{base}}
	for _, o := range others {
		sides = append(sides, []*result.Run{o})
	}
	return CompareSides(sides...)
}

// CompareSides matches the rows of every side's runs by stage, step index,
// stream name and op, and compares each side after the first with the
// first, metric by metric, with each change's significance over the
// sides' runs. Labels default to the first run's ID of each side.
func CompareSides(sides ...[]*result.Run) *Comparison {
	c := &Comparison{}
	index := map[rowKey]int{}
	for i, side := range sides {
		c.Labels = append(c.Labels, sideLabel(side))
		c.Runs = append(c.Runs, len(side))
		for _, r := range side {
			c.MultiStream = c.MultiStream || multiStream(r)
			for _, x := range foldRepetitions(r) {
				j, ok := index[x.key]
				if !ok {
					j = len(c.Rows)
					index[x.key] = j
					c.Rows = append(c.Rows, CompareRow{Stage: x.stage, Step: x.key.step, Stream: x.key.stream, Op: x.key.op,
						Runs: make([]*OpRun, len(sides))})
				}
				run := c.Rows[j].Runs[i]
				if run == nil {
					run = &OpRun{}
					c.Rows[j].Runs[i] = run
				}
				run.PerRun = append(run.PerRun, x.total)
				run.Concurrency = max(run.Concurrency, x.conc)
			}
		}
	}
	for i := range c.Rows {
		row := &c.Rows[i]
		for _, r := range row.Runs {
			if r != nil {
				r.Total = sideTotal(r.PerRun)
			}
		}
		row.Changes = make([][NumMetrics]Change, len(sides)-1)
		for j := range len(sides) - 1 {
			if b, o := row.Runs[0], row.Runs[j+1]; b != nil && o != nil {
				row.Changes[j] = compareOp(b, o)
			}
		}
	}
	return c
}

// sideLabel names a side by its first run (partial, when it is).
func sideLabel(side []*result.Run) string {
	if len(side) == 0 {
		return ""
	}
	label := side[0].RunID
	if p := side[0].Partial(); p != "" {
		label += " (partial " + p + ")"
	}
	if len(side) > 1 {
		label += fmt.Sprintf(" +%d runs", len(side)-1)
	}
	return label
}

// compareOp compares one row of two sides, metric by metric, over their
// runs.
func compareOp(b, o *OpRun) [NumMetrics]Change {
	var out [NumMetrics]Change
	values := func(r *OpRun, of func(result.OpTotal) float64) []float64 {
		v := make([]float64, len(r.PerRun))
		for i, t := range r.PerRun {
			v[i] = of(t)
		}
		return v
	}
	test := func(of func(result.OpTotal) float64) Change { return runTest(values(b, of), values(o, of)) }
	out[MetricOps] = test(func(t result.OpTotal) float64 { return t.OpsPerSec })
	if b.Total.Bytes > 0 || o.Total.Bytes > 0 {
		out[MetricThroughput] = test(func(t result.OpTotal) float64 { return t.BytesPerSec })
	} else {
		out[MetricThroughput] = out[MetricOps]
	}
	out[MetricP50] = test(func(t result.OpTotal) float64 { return float64(t.Latency.P50) })
	out[MetricP90] = test(func(t result.OpTotal) float64 { return float64(t.Latency.P90) })
	out[MetricP99] = test(func(t result.OpTotal) float64 { return float64(t.Latency.P99) })
	out[MetricP999] = test(func(t result.OpTotal) float64 { return float64(t.Latency.P999) })
	bm, om := float64(b.Total.Latency.Max), float64(o.Total.Latency.Max)
	out[MetricMax] = Change{Base: bm, Value: om, Pct: pct(bm, om), Sig: Untested, P: 1, Lo: math.NaN(), Hi: math.NaN(),
		N1: len(b.PerRun), N2: len(o.PerRun)}
	out[MetricErrors] = test(errorRatio)
	return out
}

// errorRatio is errors per op issued, so runs of different lengths
// compare fairly.
func errorRatio(t result.OpTotal) float64 {
	if t.Ops == 0 {
		return 0
	}
	return float64(Failures(t)) / float64(t.Ops)
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
