package report

import "fmt"

// CompareCell is one cell of the comparison table: a value and, for a run
// other than the base, its change against the base with its mark.
type CompareCell struct{ Value, Change string }

// String is the cell as the text table shows it.
func (c CompareCell) String() string {
	if c.Change == "" {
		return c.Value
	}
	return c.Value + " " + c.Change
}

// CompareLine is one line of the comparison table: one run of one row.
// First marks the row's first line, which names the stage, stream and op.
type CompareLine struct {
	First bool
	Cells []CompareCell
}

// CompareHead is the table's heading, as WriteCompareTable prints it.
func CompareHead(c *Comparison) []string {
	head := []string{"STAGE"}
	if c.MultiStream {
		head = append(head, "STREAM")
	}
	return append(head, "OP", "CONC", "RUN", "OPS/S", "MIB/S", "P50", "P90", "P99", "P99.9", "MAX", "ERR")
}

// CompareLines are the table's lines, a line per run of each row, cell for
// cell as WriteCompareTable prints them (the HTML page draws them as a
// table of its own).
func CompareLines(c *Comparison) []CompareLine {
	var out []CompareLine
	for i := range c.Rows {
		out = append(out, compareRowLines(c, &c.Rows[i])...)
	}
	return out
}

func compareRowLines(c *Comparison, row *CompareRow) []CompareLine {
	var out []CompareLine
	for i, r := range row.Runs {
		stage, stream, op := row.Stage, row.Stream, row.Op
		if i > 0 {
			stage, stream, op = "", "", ""
		}
		cells := []CompareCell{{Value: stage}}
		if c.MultiStream {
			cells = append(cells, CompareCell{Value: stream})
		}
		if r == nil {
			cells = append(cells, CompareCell{Value: op}, CompareCell{Value: "-"}, CompareCell{Value: c.Labels[i]}, CompareCell{Value: "missing"})
			out = append(out, CompareLine{First: i == 0, Cells: append(cells, make([]CompareCell, 7)...)})
			continue
		}
		t, p := r.Total, r.Total.Latency
		values := []CompareCell{{Value: rate(t.OpsPerSec)}, {Value: mib(t.BytesPerSec)}, {Value: msi(p.P50)}, {Value: msi(p.P90)},
			{Value: msi(p.P99)}, {Value: msi(p.P999)}, {Value: msi(p.Max)}, {Value: fmt.Sprint(Failures(t))}}
		if i > 0 && row.Runs[0] != nil {
			ch := row.Changes[i-1]
			for k, m := range []Metric{MetricOps, MetricThroughput, MetricP50, MetricP90, MetricP99, MetricP999, MetricMax, MetricErrors} {
				if m == MetricThroughput && t.Bytes == 0 && row.Runs[0].Total.Bytes == 0 {
					continue // no MiB/s to compare; OPS/S says it
				}
				values[k].Change = ch[m].String()
			}
		}
		cells = append(cells, CompareCell{Value: op}, CompareCell{Value: fmt.Sprint(r.Concurrency)}, CompareCell{Value: c.Labels[i]})
		out = append(out, CompareLine{First: i == 0, Cells: append(cells, values...)})
	}
	return out
}
