package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/atomicfile"
	"github.com/objbench/objbench/report"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/sysmon"
)

type monitorOptions struct {
	interval time.Duration
	count    int
	csv      string
	noColor  bool
	loopback bool
}

func newMonitorCommand(env Env) *cobra.Command {
	var o monitorOptions
	cmd := &cobra.Command{
		Use:   "monitor",
		Short: "Sample the machine alone (CPU incl. irq/softirq/steal, disks, network, interrupts, context switches), like dstat",
		Long: `Print one row per interval of what this machine does, the same table
'objbench report --timeline' prints for a run, while another tool runs:
CPU states (irq and softirq in their own columns), whole-disk I/O (no
partition counted twice), network traffic (no lo unless --loopback),
interrupts and context switches. Ctrl-C stops it.`,
		Example: `  objbench monitor
  objbench monitor --interval 200ms --count 50 --csv samples.csv
  objbench monitor --loopback --csv - > samples.csv   # the tool talks to 127.0.0.1`,
		Args: noArgs(),
		RunE: func(cmd *cobra.Command, _ []string) error { return runMonitor(cmd.Context(), env, o) },
	}
	f := cmd.Flags()
	f.DurationVar(&o.interval, "interval", time.Second, "time between samples")
	f.IntVar(&o.count, "count", 0, "stop after this many samples (default: until Ctrl-C)")
	f.StringVar(&o.csv, "csv", "", "also write every counter as CSV to this file ('-': CSV on stdout instead of the table)")
	f.BoolVar(&o.noColor, "no-color", false, "no colours (also: NO_COLOR set, or output not a terminal)")
	f.BoolVar(&o.loopback, "loopback", false, "count the lo interface (when the watched tool talks to this machine)")
	return cmd
}

func runMonitor(ctx context.Context, env Env, o monitorOptions) error {
	if o.interval < 10*time.Millisecond || o.count < 0 {
		return usagef("--interval must be at least 10ms and --count not negative")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := &monitorOutput{}
	n := 0
	var werr error
	s, err := sysmon.NewSampler(sysmon.Config{Interval: o.interval, Loopback: o.loopback,
		OnSample: func(smp result.Sample) { // runs on the sampler's goroutine; Stop waits for it
			if werr != nil || ctx.Err() != nil { // the last, partial interval after a stop is not shown
				return
			}
			n++
			if werr = out.row(smp); werr != nil || (o.count > 0 && n >= o.count) {
				cancel()
			}
		}})
	if err != nil {
		return fmt.Errorf("cannot sample this machine: %w", err)
	}
	if err := out.open(env, o, s.Missing()); err != nil {
		return err
	}
	defer out.close()
	for _, note := range s.Notes() {
		fmt.Fprintf(env.Stderr, "objbench: %s\n", note)
	}
	s.Start(ctx, time.Now())
	<-ctx.Done()
	if _, err := s.Stop(); err != nil {
		return err
	}
	if werr != nil {
		return werr
	}
	return out.close()
}

// monitorOutput is the table and/or the CSV a monitor writes.
type monitorOutput struct {
	table *report.TimelineWriter
	csv   *report.TimelineCSV
	file  *atomicfile.File // renamed into place when the monitor ends
}

func (m *monitorOutput) open(env Env, o monitorOptions, missing []string) error {
	var csvTo io.Writer
	switch o.csv {
	case "":
	case "-":
		csvTo = env.Stdout
	default:
		f, err := atomicfile.Create(o.csv, 0o644)
		if err != nil {
			return inputf("--csv %v", err)
		}
		m.file, csvTo = f, f
	}
	if csvTo != nil {
		m.csv = report.NewTimelineCSV(csvTo, missing)
		if err := m.csv.Header(); err != nil {
			return err
		}
	}
	if o.csv != "-" {
		st := report.TimelineStyle{Color: useColor(env, o.noColor), SubSecond: o.interval < time.Second}
		m.table = report.NewTimelineWriter(env.Stdout, st, missing, false)
		return m.table.Header()
	}
	return nil
}

func (m *monitorOutput) row(s result.Sample) error {
	if m.table != nil {
		if err := m.table.Row(s, nil); err != nil {
			return err
		}
	}
	if m.csv != nil {
		return m.csv.Row(s)
	}
	return nil
}

func (m *monitorOutput) close() error {
	if m.file == nil {
		return nil
	}
	err := m.file.Commit()
	m.file = nil
	return err
}
