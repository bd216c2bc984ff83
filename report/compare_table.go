package report

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteCompareTable prints the comparison: per row, the base run's values
// and then each other run's with its change and a mark: "*" significant,
// "?" not testable (too few samples), nothing when it is noise.
func WriteCompareTable(w io.Writer, c *Comparison) error {
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
	fmt.Fprintf(w, "latencies in ms; changes against %s (the first file), errors as a share of ops issued\n", c.Labels[0])
	fmt.Fprintf(w, "* significant: rates by Mann-Whitney U on per-second samples (p<%.2f), percentiles by disjoint 95%% confidence intervals (rank bounds, HDR bucket widths), errors by a two-proportion test; rates and percentiles also change by >= %.0f%%\n",
		alpha, minChangePct)
	fmt.Fprintf(w, "? not testable: fewer than %d whole seconds in the window, fewer than %d samples above the percentile, or MAX (one sample)\n", minSeconds, minTail)
	return nil
}

func writeCompareRow(tw io.Writer, c *Comparison, row *CompareRow) {
	for i, r := range row.Runs {
		stage, stream, op := row.Stage, row.Stream, row.Op
		if i > 0 {
			stage, stream, op = "", "", ""
		}
		fmt.Fprint(tw, stage+"\t")
		if c.MultiStream {
			fmt.Fprint(tw, stream+"\t")
		}
		if r == nil {
			fmt.Fprintf(tw, "%s\t-\t%s\tmissing\t\t\t\t\t\t\t\n", op, c.Labels[i])
			continue
		}
		t, p := r.Total, r.Total.Latency
		cells := []string{rate(t.OpsPerSec), mib(t.BytesPerSec), msi(p.P50), msi(p.P90), msi(p.P99), msi(p.P999), msi(p.Max),
			fmt.Sprint(t.Ops - t.OK)}
		if i > 0 && row.Runs[0] != nil {
			ch := row.Changes[i-1]
			for k, m := range []Metric{MetricOps, MetricThroughput, MetricP50, MetricP90, MetricP99, MetricP999, MetricMax, MetricErrors} {
				if m == MetricThroughput && t.Bytes == 0 && row.Runs[0].Total.Bytes == 0 {
					continue // no MiB/s to compare; OPS/S says it
				}
				cells[k] += changeCell(ch[m])
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%s", op, r.Concurrency, c.Labels[i])
		for _, s := range cells {
			fmt.Fprint(tw, "\t"+s)
		}
		fmt.Fprintln(tw)
	}
}

func mib(bytesPerSec float64) string {
	if bytesPerSec == 0 {
		return "-"
	}
	return rate(bytesPerSec / (1 << 20))
}

func changeCell(c Change) string {
	if s := c.String(); s != "" {
		return " " + s
	}
	return ""
}

// String is the change as the table shows it: "+12.3%", marked " *" when
// significant and " ?" when it could not be tested; empty when both values
// are 0 (nothing to compare).
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
