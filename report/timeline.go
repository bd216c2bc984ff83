package report

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/sysmon"
)

// TimelineStyle says how a timeline table is drawn.
type TimelineStyle struct {
	Color bool // ANSI colours (the caller decides: a terminal, no NO_COLOR, no --no-color)
	Ops   bool // the ops/s, MiB/s and p99 columns of a run
	// SubSecond shows tenths of a second in the time column, for
	// intervals shorter than a second.
	SubSecond bool
}

// OpsSecond is what a run's ops did in one second, for the ops columns.
type OpsSecond struct {
	Ops   int64
	Bytes int64
	P99us int64 // 0: no successful op
}

// TimelineWriter draws samples as a dstat-like table, one row per sample,
// in dstat's default order (cpu | disk | net | paging | system),
// for `objbench report --timeline` and `objbench monitor` alike.
type TimelineWriter struct {
	w       io.Writer
	st      TimelineStyle
	missing map[string]bool
	self    bool // objbench's own CPU column
}

// NewTimelineWriter draws to w; missing names the counters the machine
// lacks (their columns show "-"); self adds objbench's own CPU column.
func NewTimelineWriter(w io.Writer, st TimelineStyle, missing []string, self bool) *TimelineWriter {
	m := map[string]bool{}
	for _, c := range missing {
		m[c] = true
	}
	return &TimelineWriter{w: w, st: st, missing: m, self: self}
}

// column is one column: its group, header and width.
type column struct {
	group, name string
	width       int
}

func (t *TimelineWriter) columns() []column {
	cols := []column{{"", "time", 8}}
	if t.st.SubSecond {
		cols[0].width = 10
	}
	for _, n := range []string{"usr", "sys", "idl", "wai", "stl", "irq", "sirq"} {
		cols = append(cols, column{"cpu %", n, 4})
	}
	cols = append(cols, column{"disk/s", "read", 5}, column{"disk/s", "writ", 5},
		column{"net/s", "recv", 5}, column{"net/s", "send", 5},
		column{"paging/s", "in", 5}, column{"paging/s", "out", 5},
		column{"system/s", "int", 5}, column{"system/s", "csw", 5})
	if t.self {
		cols = append(cols, column{"obj", "cpu%", 4})
	}
	if t.st.Ops {
		cols = append(cols, column{"ops", "ops/s", 7}, column{"ops", "MiB/s", 7}, column{"ops", "p99ms", 6})
	}
	return cols
}

// Header writes the two header lines: groups, then column names.
func (t *TimelineWriter) Header() error {
	var groups, names strings.Builder
	cols := t.columns()
	for i := 0; i < len(cols); {
		j, width := i, 0
		for ; j < len(cols) && cols[j].group == cols[i].group; j++ {
			width += cols[j].width + 1
			names.WriteString(t.paint(colHeader, fmt.Sprintf(" %*s", cols[j].width, cols[j].name)))
		}
		label := cols[i].group
		if label != "" {
			label = " " + label + " "
		}
		if len(label) > width {
			label = label[:width]
		}
		pad := width - len(label)
		groups.WriteString(t.paint(colHeader, strings.Repeat("-", pad/2)+label+strings.Repeat("-", pad-pad/2)))
		if j < len(cols) {
			groups.WriteString(t.paint(colSep, "|"))
			names.WriteString(t.paint(colSep, "|"))
		}
		i = j
	}
	_, err := fmt.Fprintf(t.w, "%s\n%s\n", groups.String(), names.String())
	return err
}

// Row writes one sample; ops may be nil (no op record for that second).
func (t *TimelineWriter) Row(s result.Sample, ops *OpsSecond) error {
	c := s.CPU
	clock := "15:04:05"
	if t.st.SubSecond {
		clock = "15:04:05.0"
	}
	cells := []cell{{text: s.Start.Format(clock)},
		t.pct(c.User, false), t.pct(c.Sys, false), t.pct(c.Idle, c.Idle < 100-sysmon.HostCPUBusy),
		t.pct(c.IOWait, c.IOWait >= sysmon.IOWaitHigh), t.opt("steal", t.pct(c.Steal, c.Steal >= sysmon.StealHigh)),
		t.pct(c.IRQ, false), t.pct(c.SoftIRQ, false),
		t.opt("disk", t.num(s.Disk.ReadBytes, 1024)), t.opt("disk", t.num(s.Disk.WriteBytes, 1024)),
		t.opt("net", t.num(s.Net.RecvBytes, 1024)), t.opt("net", t.num(s.Net.SendBytes, 1024)),
		t.num(s.PageIn, 1024), t.num(s.PageOut, 1024),
		t.num(s.Interrupts, 1000), t.num(s.CtxSwitches, 1000)}
	if t.self {
		own := cell{text: "-"}
		if s.Proc != nil && s.Proc.MaxProcs > 0 {
			share := s.Proc.CPU() / float64(s.Proc.MaxProcs) * 100
			own = t.pct(share, share >= sysmon.ClientCPUShare)
		}
		cells = append(cells, own)
	}
	if t.st.Ops {
		cells = append(cells, opsCells(ops)...)
	}
	var b strings.Builder
	cols := t.columns()
	for i, col := range cols {
		if i > 0 && col.group != cols[i-1].group {
			b.WriteString(t.paint(colSep, "|"))
		}
		b.WriteString(" " + t.paint(cells[i].color, fmt.Sprintf("%*s", col.width, cells[i].text)))
	}
	_, err := fmt.Fprintln(t.w, strings.TrimRight(b.String(), " "))
	return err
}

func opsCells(o *OpsSecond) []cell {
	if o == nil {
		return []cell{{text: ""}, {text: ""}, {text: ""}}
	}
	p99 := ""
	if o.P99us > 0 {
		p99 = ms(float64(o.P99us))
	}
	return []cell{{text: strconv.FormatInt(o.Ops, 10)},
		{text: strconv.FormatFloat(float64(o.Bytes)/(1<<20), 'f', 1, 64)}, {text: p99}}
}

// cell is one value and its colour.
type cell struct {
	text  string
	color string
}

// ANSI colours, after dstat: zeros recede, alarming values stand out.
const (
	colHeader = "\x1b[34m"
	colSep    = "\x1b[90m"
	colZero   = "\x1b[90m"
	colAlarm  = "\x1b[1;31m"
	colReset  = "\x1b[0m"
)

func (t *TimelineWriter) paint(color, s string) string {
	if !t.st.Color || color == "" {
		return s
	}
	return color + s + colReset
}

func (t *TimelineWriter) pct(v float64, alarm bool) cell {
	c := cell{text: strconv.FormatFloat(v, 'f', 0, 64)}
	switch {
	case alarm:
		c.color = colAlarm
	case c.text == "0":
		c.color = colZero
	}
	return c
}

// num formats a rate in four characters with k/M/G units of base.
func (t *TimelineWriter) num(v, base float64) cell {
	units := []string{"", "k", "M", "G", "T"}
	i := 0
	for v >= 1000 && i < len(units)-1 {
		v /= base
		i++
	}
	text := strconv.FormatFloat(v, 'f', 0, 64) + units[i]
	if v < 10 && i > 0 {
		text = strconv.FormatFloat(v, 'f', 1, 64) + units[i]
	}
	if text == "0" {
		return cell{text: text, color: colZero}
	}
	return cell{text: text}
}

// opt blanks a cell whose counter the machine lacks.
func (t *TimelineWriter) opt(counter string, c cell) cell {
	if t.missing[counter] {
		return cell{text: "-", color: colZero}
	}
	return c
}

// WriteTimeline draws a run's timeline: a line naming each step, then its
// seconds with the ops they completed, then the verdict.
func WriteTimeline(w io.Writer, r *result.Run, st TimelineStyle) error {
	if r.System == nil || len(r.System.Samples) == 0 {
		return fmt.Errorf("this result file has no system timeline (written by an objbench that did not sample the machine)")
	}
	st.Ops = true
	tw := NewTimelineWriter(w, st, r.System.Missing, hasProc(r.System.Samples))
	if err := tw.Header(); err != nil {
		return err
	}
	last := -1
	var pending []string // the step's outages not yet drawn, each before the row of the second it began
	var pendingAt []int64
	for _, s := range r.System.Samples {
		if s.Step < 0 || s.Step >= len(r.Steps) {
			continue
		}
		step := &r.Steps[s.Step]
		if s.Step != last {
			for _, l := range pending {
				fmt.Fprintln(w, tw.paint(colHeader, l))
			}
			fmt.Fprintln(w, tw.paint(colHeader, "# step "+strconv.Itoa(s.Step)+": "+stepLabel(step)))
			last = s.Step
			pending, pendingAt = outageLines(step)
		}
		for len(pending) > 0 && pendingAt[0] <= s.T {
			fmt.Fprintln(w, tw.paint(colHeader, pending[0]))
			pending, pendingAt = pending[1:], pendingAt[1:]
		}
		ops, err := opsAt(step, s.T)
		if err != nil {
			return err
		}
		if err := tw.Row(s, ops); err != nil {
			return err
		}
	}
	for _, l := range pending {
		fmt.Fprintln(w, tw.paint(colHeader, l))
	}
	writeVerdict(w, r)
	return nil
}

// outageLines are the step's outages as timeline lines, in the order they
// began, with the second each began.
func outageLines(step *result.Step) (lines []string, at []int64) {
	var b strings.Builder
	for i := range step.Streams {
		b.Reset()
		writeOutages(&b, step, &step.Streams[i])
		for j, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
			if l == "" {
				continue
			}
			lines = append(lines, "# "+strings.TrimSpace(l))
			at = append(at, int64(step.Streams[i].Outages[j].Start))
		}
	}
	idx := make([]int, len(lines))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return at[idx[a]] < at[idx[b]] })
	sl, sa := make([]string, len(idx)), make([]int64, len(idx))
	for k, i := range idx {
		sl[k], sa[k] = lines[i], at[i]
	}
	return sl, sa
}

func hasProc(samples []result.Sample) bool {
	for _, s := range samples {
		if s.Proc != nil {
			return true
		}
	}
	return false
}

// opsAt sums second t of every stream of a step: ops, bytes and the p99
// of the merged latency histograms (never an average of percentiles).
func opsAt(step *result.Step, t int64) (*OpsSecond, error) {
	var out OpsSecond
	var merged *hdr.Histogram
	found := false
	for _, st := range step.Streams {
		if t < 0 || t >= int64(len(st.Seconds)) || st.Seconds[t].T != t {
			continue
		}
		found = true
		for _, o := range st.Seconds[t].Ops {
			out.Ops += o.Ops
			out.Bytes += o.Bytes
			if o.Latency == "" {
				continue
			}
			h, err := result.DecodeHistogram(o.Latency)
			if err != nil {
				return nil, fmt.Errorf("step %s second %d: decode histogram: %w", step.Stage, t, err)
			}
			if merged == nil {
				merged = h
			} else {
				merged.Merge(h)
			}
		}
	}
	if !found {
		return nil, nil
	}
	if merged != nil {
		out.P99us = merged.ValueAtQuantile(99)
	}
	return &out, nil
}
