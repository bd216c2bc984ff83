package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/objbench/objbench/result"
)

// writeCheckpoints prints each save and load: its duration (until the
// slowest rank was done), its rate, the ranks' p50 and p99 and the
// slowest rank.
func writeCheckpoints(w io.Writer, r *result.Run) {
	var tw *tabwriter.Writer
	var gen float64
	for i := range r.Steps {
		c := r.Steps[i].Checkpoint
		if c == nil {
			continue
		}
		if tw == nil {
			scale := ""
			if c.Scale != 1 {
				scale = fmt.Sprintf(", scaled by %g", c.Scale)
			}
			fmt.Fprintf(w, "\nCheckpoints: %s, %d ranks, %d objects of %s in all (%.2f GiB)%s\n", c.Model, c.Ranks, c.Objects,
				decimal(float64(c.Bytes)), float64(c.Bytes)/(1<<30), scale)
			tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "OP\t#\tDURATION\tGiB/s\tRANK P50\tRANK P99\tSLOWEST RANK\tBYTES\tERRORS\t")
		}
		p50, _ := c.RankQuantile(0.5)
		p99, slow := c.RankQuantile(0.99)
		fmt.Fprintf(tw, "%s\t%d\t%s\t%.2f\t%s\t%s\t%d\t%s\t%d\t\n", c.Op, c.Index, seconds(c.Duration()), c.BytesPerSec()/(1<<30),
			seconds(p50), seconds(p99), slow, decimal(float64(c.Moved())), c.Errors())
		gen = max(gen, c.GeneratorRate)
	}
	if tw == nil {
		return
	}
	_ = tw.Flush()
	if gen > 0 {
		fmt.Fprintf(w, "payload generator: %.2f GB/s per core, measured before the run\n", gen/1e9)
	}
	fmt.Fprintln(w, "DURATION: from the checkpoint's start until its slowest rank moved its last byte; GiB/s: the checkpoint's bytes over it")
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f s", d.Seconds()) }

// writeLake prints each scan: queries, their scan time, requests and
// bytes per query, and what they read of what the files store.
func writeLake(w io.Writer, r *result.Run) error {
	for i := range r.Steps {
		s := &r.Steps[i]
		l := s.Lake
		if l == nil {
			continue
		}
		scan, err := l.ScanPercentiles()
		if err != nil {
			return fmt.Errorf("%s: scan times: %w", s.Stage, err)
		}
		fmt.Fprintf(w, "\nLakehouse scan: %d files of %s (%d row groups x %d columns), %d columns projected, %d files a query\n",
			l.Files, decimal(float64(l.FileBytes)), l.RowGroups, l.Columns, l.Projected, l.FilesPerQuery)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "QUERIES\tSCAN P50\tSCAN P99\tSCAN MAX\tREQUESTS/QUERY\tREAD/QUERY\tREAD OF STORED\tRANGE-GET P50\tRANGE-GET P99\tERRORS\t")
		q := max(l.Queries, 1)
		rg := rangeGet(s)
		read := 0.0
		if l.BytesScanned > 0 {
			read = 100 * float64(l.BytesRead) / float64(l.BytesScanned)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%.1f\t%s\t%.2f%%\t%s\t%s\t%d\t\n", l.Queries, msUnit(scan.P50), msUnit(scan.P99), msUnit(scan.Max),
			float64(l.Requests)/float64(q), decimal(float64(l.BytesRead)/float64(q)), read, msUnit(rg.P50), msUnit(rg.P99), l.Errors)
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// rangeGet is the step's ranged GETs' latency.
func rangeGet(s *result.Step) result.Percentiles {
	for _, st := range s.Streams {
		for _, t := range st.Totals {
			if t.Op == "RANGE-GET" {
				return t.Latency
			}
		}
	}
	return result.Percentiles{}
}

// AIStepLine is a step's AI figures in one line, for progress and the
// live view ("" for a step without them): an epoch's AU against its
// target, a find-max round's, a checkpoint's duration and rate, a scan's
// queries.
func AIStepLine(s *result.Step) string {
	switch {
	case len(s.Training) > 0:
		t := &s.Training[len(s.Training)-1]
		what := fmt.Sprintf("epoch %d", t.Epoch)
		if t.Epoch == 0 {
			what = fmt.Sprintf("find-max round %d", len(s.Training))
		}
		met := "met"
		if !t.Met() {
			met = "missed"
		}
		return fmt.Sprintf("%s, %d %s (%s): AU %.1f%% (at the computation asked %.1f%%), target %.0f%% %s; %.1f samples/s, %.1f MB/s",
			what, t.Accelerators, strings.ToUpper(t.Accelerator), t.Model, 100*t.AU(), 100*t.AUAsked(), 100*t.AUTarget, met,
			t.SamplesPerSec(), t.BytesPerSec()/1e6)
	case s.Checkpoint != nil:
		c := s.Checkpoint
		_, slow := c.RankQuantile(1)
		return fmt.Sprintf("%s %d of %s: %s in %s, %.2f GiB/s, slowest rank %d, %d errors", c.Op, c.Index, c.Model,
			decimal(float64(c.Moved())), seconds(c.Duration()), c.BytesPerSec()/(1<<30), slow, c.Errors())
	case s.Lake != nil:
		l := s.Lake
		p, _ := l.ScanPercentiles()
		return fmt.Sprintf("lake: %d queries, scan p50 %s p99 %s, %d requests, %s read", l.Queries, msUnit(p.P50), msUnit(p.P99),
			l.Requests, decimal(float64(l.BytesRead)))
	}
	return ""
}
