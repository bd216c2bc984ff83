package report

import (
	"fmt"
	"io"
	"strings"
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
	fmt.Fprintf(w, "* significant: rates by a Mann-Whitney U test (p<%.2f, exact, as benchstat) over %s; percentiles by the same test over repetitions, else by disjoint 95%% confidence intervals (rank bounds, HDR bucket widths); errors by a two-proportion test; rates and percentiles also change by >= %.0f%%\n",
		alpha, rateMethods(c), minChangePct)
	fmt.Fprintf(w, "? not testable: too few samples for the U test to reach p<%.2f (repetitions: --repeat 5 or more; batch means: a run longer than its autocorrelation), fewer than %d samples above the percentile, or MAX (one sample)\n", alpha, minTail)
	return nil
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

// rateMethods says how the rows' rates were tested: each method with the
// range of samples a side (and of batch lengths) it had.
func rateMethods(c *Comparison) string {
	type span struct{ lo, hi, blo, bhi int }
	var order []string
	seen := map[string]*span{}
	for _, row := range c.Rows {
		for _, ch := range row.Changes {
			m := ch[MetricOps]
			if m.Method == "" {
				continue
			}
			sp := seen[m.Method]
			if sp == nil {
				sp = &span{lo: min(m.N1, m.N2), hi: max(m.N1, m.N2), blo: m.Batch, bhi: m.Batch}
				seen[m.Method] = sp
				order = append(order, m.Method)
			}
			sp.lo, sp.hi = min(sp.lo, m.N1, m.N2), max(sp.hi, m.N1, m.N2)
			sp.blo, sp.bhi = min(sp.blo, m.Batch), max(sp.bhi, m.Batch)
		}
	}
	if len(order) == 0 {
		return "repetitions, or batch means of the per-second rates"
	}
	between := func(lo, hi int) string {
		if lo == hi {
			return fmt.Sprint(lo)
		}
		return fmt.Sprintf("%d-%d", lo, hi)
	}
	var parts []string
	for _, m := range order {
		sp := seen[m]
		if m == "batch means" {
			m = "batch means of the per-second rates (batches of " + between(sp.blo, sp.bhi) + " s, from their autocorrelation;"
			m += " "
		} else {
			m += " ("
		}
		parts = append(parts, m+between(sp.lo, sp.hi)+" samples a side)")
	}
	return strings.Join(parts, " and ")
}
