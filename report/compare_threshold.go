package report

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/objbench/objbench/metrics"
)

// Threshold is a --fail-if rule: a change of Metric beyond Pct (above it
// when Above, below it otherwise), for one op or, with Op empty, any op.
type Threshold struct {
	Expr   string
	Op     string
	Metric Metric
	Above  bool
	Pct    float64
}

var thresholdRE = regexp.MustCompile(`^(?:([A-Za-z_-]+):)?([A-Za-z0-9.]+)\s*([<>])\s*([+-]?[0-9]+(?:\.[0-9]+)?)%$`)

// ParseThreshold reads "[OP:]METRIC>PCT%" or "[OP:]METRIC<PCT%", e.g.
// "p99>+10%", "throughput<-5%", "GET:p99.9>+20%".
func ParseThreshold(expr string) (Threshold, error) {
	m := thresholdRE.FindStringSubmatch(strings.TrimSpace(expr))
	if m == nil {
		return Threshold{}, fmt.Errorf("threshold %q: want [OP:]METRIC>PCT%% or [OP:]METRIC<PCT%%, e.g. 'p99>+10%%' or 'GET:throughput<-5%%'", expr)
	}
	t := Threshold{Expr: expr, Above: m[3] == ">"}
	if m[1] != "" {
		op, err := metrics.ParseOp(m[1])
		if err != nil {
			return Threshold{}, fmt.Errorf("threshold %q: %w", expr, err)
		}
		t.Op = op.String()
	}
	var err error
	if t.Metric, err = ParseMetric(m[2]); err != nil {
		return Threshold{}, fmt.Errorf("threshold %q: %w", expr, err)
	}
	if t.Pct, err = strconv.ParseFloat(m[4], 64); err != nil {
		return Threshold{}, fmt.Errorf("threshold %q: %w", expr, err)
	}
	return t, nil
}

// crossed reports whether c goes beyond the threshold. A change shown to
// be noise never does; one that could not be tested does, so too short a
// run cannot hide a regression.
func (t Threshold) crossed(c Change) bool {
	if c.Sig == NotSignificant || (c.Pct == 0 && c.Base == c.Value) {
		return false
	}
	if t.Above {
		return c.Pct > t.Pct
	}
	return c.Pct < t.Pct
}

// Violation is a threshold crossed by one run in one row.
type Violation struct {
	Threshold Threshold
	Row       *CompareRow
	Run       int // index into Comparison.Labels; never 0, the base
	Change    Change
}

func (v Violation) String(labels []string) string {
	sig := "significant"
	if v.Change.Sig == Untested {
		sig = "not tested: too few runs"
	}
	return fmt.Sprintf("--fail-if %s: %s in %s: %s %s (%s)", v.Threshold.Expr, v.Row.Label(), labels[v.Run],
		v.Threshold.Metric, formatPct(v.Change.Pct), sig)
}

// Check returns every threshold crossed, in row order.
func (c *Comparison) Check(ts []Threshold) []Violation {
	var out []Violation
	for i := range c.Rows {
		row := &c.Rows[i]
		for j, ch := range row.Changes {
			if row.Runs[0] == nil || row.Runs[j+1] == nil {
				continue
			}
			for _, t := range ts {
				if t.Op != "" && t.Op != row.Op {
					continue
				}
				if t.crossed(ch[t.Metric]) {
					out = append(out, Violation{Threshold: t, Row: row, Run: j + 1, Change: ch[t.Metric]})
				}
			}
		}
	}
	return out
}

func formatPct(p float64) string {
	switch {
	case math.IsInf(p, 1):
		return "+inf%"
	case math.IsInf(p, -1):
		return "-inf%"
	}
	return fmt.Sprintf("%+.1f%%", p)
}
