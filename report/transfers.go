package report

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/objbench/objbench/result"
)

// WriteTransfers prints, for a run of whole-object transfers (objbench
// transfer), one row per step of what the transfer did over its wall
// time (objects, bytes, MiB/s, objects/s, object and request latency,
// requests and retries), then each step's check of the destination.
// It prints nothing for runs without transfers.
func WriteTransfers(w io.Writer, r *result.Run) error {
	reps := false
	for _, s := range r.Steps {
		reps = reps || s.Repetition > 0
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	any := false
	var checks []string
	for i := range r.Steps {
		s := &r.Steps[i]
		t := s.Transfer
		if t == nil {
			continue
		}
		if !any {
			head := "WALL\tOBJECTS\tBYTES\tMiB/s\tOBJECTS/s\tOBJ p50\tOBJ p99\tPART p50\tPART p99\tPARTS\tRETRIES\t"
			if reps {
				head = "REP\t" + head
			}
			fmt.Fprintln(tw, head)
			any = true
		}
		obj, err := t.ObjectPercentiles()
		if err != nil {
			return fmt.Errorf("step %d: object latency: %w", i+1, err)
		}
		part := requestLatency(s)
		if reps {
			fmt.Fprintf(tw, "%d\t", s.Repetition)
		}
		fmt.Fprintf(tw, "%.2f s\t%d\t%s\t%.1f\t%.1f\t%s\t%s\t%s\t%s\t%d\t%d\t\n", t.Wall.Seconds(), t.Objects,
			Bytes(float64(t.Bytes)), t.MiBps(), t.ObjectsPerSec(), msUnit(obj.P50), msUnit(obj.P99),
			msUnit(part.P50), msUnit(part.P99), t.Parts, t.Retries)
		if c := t.Check; c != nil {
			line := c.Text
			if reps {
				line = "repetition " + strconv.Itoa(s.Repetition) + ": " + line
			}
			checks = append(checks, line)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, c := range checks {
		fmt.Fprintln(w, c)
	}
	return nil
}

// requestLatency is the latency of a transfer step's data requests, from
// its stream's totals.
func requestLatency(s *result.Step) result.Percentiles {
	for _, st := range s.Streams {
		for _, t := range st.Totals {
			if t.Op == "PUT" || t.Op == "GET" {
				return t.Latency
			}
		}
	}
	return result.Percentiles{}
}

// msUnit formats microseconds as milliseconds with a unit, "-" for none.
func msUnit(us int64) string {
	if us <= 0 {
		return "-"
	}
	return msi(us) + " ms"
}

func hasTransfers(r *result.Run) bool {
	for _, s := range r.Steps {
		if s.Transfer != nil {
			return true
		}
	}
	return false
}
