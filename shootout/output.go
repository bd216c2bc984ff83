package shootout

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Columns of the table, in the studies' shape plus CPU seconds.
var Columns = []string{"Client", "Threads", "Files", "FileSize (MB)", "TotalTransferred (MB)", "Duration (s)", "Speed (MB/s)", "CPU s"}

const mib = 1 << 20

// transferred is what the cell moved: the dataset when every run was
// verified, else what the last failed run left under its prefix.
func (c *Cell) transferred() int64 {
	if c.OK {
		return c.TotalBytes
	}
	for i := len(c.Runs) - 1; i >= 0; i-- {
		if !c.Runs[i].Verified {
			return c.Runs[i].Bytes
		}
	}
	return 0
}

// rows is the table's cells as text.
func (r *Result) rows() [][]string {
	var rows [][]string
	for _, c := range r.Cells {
		row := []string{c.Tool, strconv.Itoa(c.Threads), strconv.Itoa(c.Files), num(float64(c.FileSize) / mib),
			num(float64(c.transferred()) / mib), "FAILED", "-", "-"}
		if c.OK {
			row[5], row[6], row[7] = fmt.Sprintf("%.2f", c.Duration.Median), fmt.Sprintf("%.1f", c.Speed.Median),
				fmt.Sprintf("%.2f", c.CPU.Median)
		}
		rows = append(rows, row)
	}
	return rows
}

// num prints a size in MB without needless decimals.
func num(v float64) string {
	if v == float64(int64(v)) {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// WriteTable writes the table (Markdown) and its notes: units, how each
// tool was run and its version, tools skipped, failed runs with the tail
// of their stderr.
func (r *Result) WriteTable(w io.Writer) error {
	rows := r.rows()
	width := make([]int, len(Columns))
	for i, c := range Columns {
		width[i] = len(c)
	}
	for _, row := range rows {
		for i, v := range row {
			width[i] = max(width[i], len(v))
		}
	}
	var b strings.Builder
	if why := r.Shortfall(); why != "" { // first, not under a table that looks like a comparison
		b.WriteString(why + "\n\n")
	}
	line := func(cells []string) {
		for i, v := range cells {
			if i == 0 {
				fmt.Fprintf(&b, "| %-*s ", width[i], v)
			} else {
				fmt.Fprintf(&b, "| %*s ", width[i], v)
			}
		}
		b.WriteString("|\n")
	}
	line(Columns)
	sep := make([]string, len(Columns))
	for i := range sep {
		sep[i] = strings.Repeat("-", width[i])
		if i > 0 {
			sep[i] = sep[i][:width[i]-1] + ":"
		}
	}
	line(sep)
	for _, row := range rows {
		line(row)
	}
	b.WriteString("\n")
	b.WriteString(r.notes())
	_, err := io.WriteString(w, b.String())
	return err
}

func (r *Result) notes() string {
	var b strings.Builder
	what := "one run"
	if r.Repeat > 1 {
		what = fmt.Sprintf("median of %d runs (min/max in --csv/--json)", r.Repeat)
	}
	fmt.Fprintf(&b, "MB = MiB (2^20 bytes); Duration = the tool's wall time, start to exit, %s; CPU s = user+sys of the tool's process.\n", what)
	fmt.Fprintf(&b, "Uploads to s3://%s/%s at %s, each run verified by listing its prefix (count and bytes), then deleted.\n",
		r.Bucket, r.Prefix, r.Endpoint)
	if r.Scaling == "weak" {
		b.WriteString("Weak scaling: each thread uploads its own copy of the file set (Files and TotalTransferred grow with Threads).\n")
	}
	for _, t := range r.Tools {
		switch {
		case t.Skipped != "":
			fmt.Fprintf(&b, "skipped %s\n", t.Skipped)
		case t.Template != "":
			fmt.Fprintf(&b, "%s: custom, %s\n", t.Name, t.Template)
		default:
			fmt.Fprintf(&b, "%s [%s]\n", t.Note, t.Version)
		}
		if t.Checksums != "" {
			fmt.Fprintf(&b, "  %s computes over each upload: %s\n", t.Name, t.Checksums)
		}
	}
	for _, c := range r.Cells {
		for _, run := range c.Runs {
			if run.Verified {
				continue
			}
			fmt.Fprintf(&b, "FAILED %s, %d threads, %s, run %d: %s\n", c.Tool, c.Threads, c.Set, run.Rep, run.Error)
			if run.Stderr != "" {
				fmt.Fprintf(&b, "  stderr (tail):\n    %s\n", strings.ReplaceAll(run.Stderr, "\n", "\n    "))
			}
		}
	}
	return b.String()
}

// csvHeader is the CSV's first line.
var csvHeader = []string{"client", "threads", "files", "file_size_bytes", "total_transferred_bytes", "ok", "runs",
	"duration_s", "duration_min_s", "duration_max_s", "speed_mib_s", "speed_min_mib_s", "speed_max_mib_s",
	"cpu_s", "cpu_min_s", "cpu_max_s", "version"}

// WriteCSV writes one line per cell.
func (r *Result) WriteCSV(w io.Writer) error {
	versions := map[string]string{}
	for _, t := range r.Tools {
		versions[t.Name] = t.Version
	}
	cw := csv.NewWriter(w)
	_ = cw.Write(csvHeader)
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }
	for _, c := range r.Cells {
		_ = cw.Write([]string{c.Tool, strconv.Itoa(c.Threads), strconv.Itoa(c.Files), strconv.FormatInt(c.FileSize, 10),
			strconv.FormatInt(c.transferred(), 10), strconv.FormatBool(c.OK), strconv.Itoa(len(c.Runs)),
			f(c.Duration.Median), f(c.Duration.Min), f(c.Duration.Max), f(c.Speed.Median), f(c.Speed.Min), f(c.Speed.Max),
			f(c.CPU.Median), f(c.CPU.Min), f(c.CPU.Max), versions[c.Tool]})
	}
	cw.Flush()
	return cw.Error()
}

// WriteJSON writes the whole result, every run included.
func (r *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
