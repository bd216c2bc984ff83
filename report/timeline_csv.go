package report

import (
	"encoding/csv"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/objbench/objbench/result"
)

var timelineCSVHeader = []string{"time", "step", "t", "dur_s", "usr", "sys", "idl", "wai", "stl", "irq", "sirq",
	"read_bps", "write_bps", "reads_ps", "writes_ps", "recv_bps", "send_bps", "recv_pps", "send_pps",
	"page_in_bps", "page_out_bps", "interrupts_ps", "ctx_switches_ps",
	"proc_cpu_cores", "threads", "rss_bytes", "goroutines", "gc_pause_s", "sched_p99_s", "conns"}

// TimelineCSV writes samples as CSV rows, every counter in base units; a
// counter the machine lacks is an empty cell.
type TimelineCSV struct {
	w       *csv.Writer
	missing map[string]bool
}

// NewTimelineCSV writes to w; missing names the counters the machine lacks.
func NewTimelineCSV(w io.Writer, missing []string) *TimelineCSV {
	m := map[string]bool{}
	for _, c := range missing {
		m[c] = true
	}
	return &TimelineCSV{w: csv.NewWriter(w), missing: m}
}

// Header writes the column names.
func (c *TimelineCSV) Header() error { return c.write(timelineCSVHeader) }

// Row writes one sample.
func (c *TimelineCSV) Row(s result.Sample) error {
	f := func(v float64) string { return strconv.FormatFloat(math.Round(v*1e6)/1e6, 'f', -1, 64) }
	g := func(counter string, v float64) string {
		if c.missing[counter] {
			return ""
		}
		return f(v)
	}
	rec := []string{s.Start.Format(time.RFC3339Nano), strconv.Itoa(s.Step), strconv.FormatInt(s.T, 10), f(s.Dur),
		f(s.CPU.User), f(s.CPU.Sys), f(s.CPU.Idle), f(s.CPU.IOWait), g("steal", s.CPU.Steal), f(s.CPU.IRQ), f(s.CPU.SoftIRQ),
		g("disk", s.Disk.ReadBytes), g("disk", s.Disk.WriteBytes), g("disk", s.Disk.Reads), g("disk", s.Disk.Writes),
		g("net", s.Net.RecvBytes), g("net", s.Net.SendBytes), g("net", s.Net.RecvPackets), g("net", s.Net.SendPackets),
		g("paging", s.PageIn), g("paging", s.PageOut), f(s.Interrupts), f(s.CtxSwitches)}
	if p := s.Proc; p != nil {
		rec = append(rec, f(p.CPU()), strconv.Itoa(p.Threads), strconv.FormatUint(p.RSS, 10),
			strconv.Itoa(p.Goroutines), f(p.GCPause), f(p.SchedP99), strconv.Itoa(p.Conns))
	} else {
		rec = append(rec, "", "", "", "", "", "", "")
	}
	return c.write(rec)
}

// write writes a record and flushes it, so a monitor's rows appear as
// they are taken.
func (c *TimelineCSV) write(rec []string) error {
	if err := c.w.Write(rec); err != nil {
		return err
	}
	c.w.Flush()
	return c.w.Error()
}
