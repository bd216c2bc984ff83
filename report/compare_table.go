package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// WriteCompareTable prints the comparison: first, when the sides have too
// few runs to test any change, a line that says so; then per row the base
// side's values and each other side's with its change and a mark ("*"
// significant, "?" not tested, nothing when it is noise); then the
// significant changes with their confidence intervals.
func WriteCompareTable(w io.Writer, c *Comparison) error {
	if line := runsLine(c); line != "" {
		fmt.Fprintln(w, line)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "STAGE\t"
	if c.MultiStream {
		head += "STREAM\t"
	}
	fmt.Fprintln(tw, head+"OP\tCONC\tRUN\tOPS/S\tMIB/S\tP50\tP90\tP99\tP99.9\tMAX\tERR")
	for i := range c.Rows {
		writeCompareRow(tw, c, &c.Rows[i])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "latencies in ms; changes against %s (the first side), errors as a share of ops issued; a side of several runs shows their median\n", c.Labels[0])
	fmt.Fprintf(w, "* significant: a Mann-Whitney U test over the runs of both sides, each run one sample (p<%.2f, exact, as benchstat), and a change of >= %.0f%%\n",
		alpha, minChangePct)
	fmt.Fprintf(w, "? not tested: fewer runs than the U test needs to reach p<%.2f (%d a side), or MAX (one sample a run)\n", alpha, RunsNeeded())
	writeSignificant(w, c)
	return nil
}

// runsLine says, when it is so, that the sides have too few runs for any
// change to be tested: then no mark means "not shown", not "noise".
func runsLine(c *Comparison) string {
	if len(c.Runs) < 2 {
		return ""
	}
	testable := false
	for _, n := range c.Runs[1:] {
		testable = testable || minUTestP(c.Runs[0], n) < alpha
	}
	if testable {
		return ""
	}
	have := make([]string, len(c.Runs))
	for i, n := range c.Runs {
		have[i] = fmt.Sprint(n)
	}
	return fmt.Sprintf("significance needs %d runs a side (here %s): give each side as a comma list or a directory of result files; no change below is tested",
		RunsNeeded(), strings.Join(have, ", "))
}

// writeSignificant lists the significant changes with their p-values and
// confidence intervals.
func writeSignificant(w io.Writer, c *Comparison) {
	first := true
	for i := range c.Rows {
		row := &c.Rows[i]
		for j, ch := range row.Changes {
			for _, m := range []Metric{MetricThroughput, MetricOps, MetricP50, MetricP90, MetricP99, MetricP999, MetricErrors} {
				x := ch[m]
				if x.Sig != Significant || (m == MetricThroughput && row.Runs[0].Total.Bytes == 0) {
					continue
				}
				if first {
					fmt.Fprintln(w, "significant changes (95% confidence interval of the change, from the runs' pairwise differences):")
					first = false
				}
				ci := ""
				if !math.IsNaN(x.Lo) {
					ci = fmt.Sprintf(" [%s, %s]", formatPct(x.Lo), formatPct(x.Hi))
				}
				fmt.Fprintf(w, "  %s, %s: %s %s%s, p=%.3g, %d and %d runs\n", row.Label(), c.Labels[j+1], m, formatPct(x.Pct), ci, x.P, x.N1, x.N2)
			}
		}
	}
}

func writeCompareRow(tw io.Writer, c *Comparison, row *CompareRow) {
	for _, l := range compareRowLines(c, row) {
		cells := make([]string, len(l.Cells))
		for k, cell := range l.Cells {
			cells[k] = cell.String()
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
}

func mib(bytesPerSec float64) string {
	if bytesPerSec == 0 {
		return "-"
	}
	return rate(bytesPerSec / (1 << 20))
}

// String is the change as the table shows it: "+12.3%", marked " *" when
// significant and " ?" when it was not tested (too few runs); empty when
// both values are 0 (nothing to compare).
func (c Change) String() string {
	if c.Base == 0 && c.Value == 0 {
		return ""
	}
	s := formatPct(c.Pct)
	switch c.Sig {
	case Significant:
		s += " *"
	case Untested:
		s += " ?"
	}
	return s
}
