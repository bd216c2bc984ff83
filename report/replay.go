package report

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/objbench/objbench/result"
)

// writeReplay sets a replay's latency beside the latency its source log
// recorded, per op, and says what was not replayed.
func writeReplay(w io.Writer, r *result.Run) {
	rp := r.Replay
	if rp == nil {
		return
	}
	speed := "max"
	if rp.Speed > 0 {
		speed = fmt.Sprintf("%g", rp.Speed)
	}
	fmt.Fprintf(w, "\nReplay of %s (%s) at speed %s: %d requests, %d objects prepared first", strings.Join(rp.Sources, " "), rp.Format, speed, rp.Issued, rp.Prepared)
	if rp.Window != "" {
		fmt.Fprintf(w, ", window %s", rp.Window)
	}
	if rp.Ops > 0 {
		fmt.Fprintf(w, ", at most %d ops", rp.Ops)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "OP\tSOURCE OPS\tSOURCE P50\tSOURCE P99\tREPLAY OPS\tREPLAY P50\tREPLAY P99\tRESPONSE P50\tRESPONSE P99")
	for _, s := range rp.Source {
		t := replayTotal(r, s.Op)
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s", s.Op, s.Ops, sourceMS(s.Latency, s.Latency.P50), sourceMS(s.Latency, s.Latency.P99))
		if t == nil {
			fmt.Fprintln(tw, "\t0\t-\t-\t-\t-")
			continue
		}
		resp := [2]string{"-", "-"}
		if t.Response != nil {
			resp = [2]string{msi(t.Response.P50), msi(t.Response.P99)}
		}
		fmt.Fprintf(tw, "\t%d\t%s\t%s\t%s\t%s\n", t.Ops, msi(t.Latency.P50), msi(t.Latency.P99), resp[0], resp[1])
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "SOURCE: the latency the log recorded (access logs: total time; op logs: latency; traces: duration), - when it has none; REPLAY: service time; RESPONSE: from when the request was due")
	if rp.Late > 0 {
		fmt.Fprintf(w, "%d requests came later than the reorder window in the log and were issued at once\n", rp.Late)
	}
	reasons := make([]string, 0, len(rp.Skipped))
	for k := range rp.Skipped {
		reasons = append(reasons, k)
	}
	sort.Slice(reasons, func(i, j int) bool {
		a, b := rp.Skipped[reasons[i]], rp.Skipped[reasons[j]]
		return a > b || a == b && reasons[i] < reasons[j]
	})
	for _, k := range reasons {
		fmt.Fprintf(w, "not replayed: %d %s\n", rp.Skipped[k], k)
	}
}

func sourceMS(p result.Percentiles, v int64) string {
	if p.Count == 0 {
		return "-"
	}
	return msi(v)
}

// replayTotal is the replay's main-stage total of op, merged across its
// steps (a replay has one).
func replayTotal(r *result.Run, op string) *result.OpTotal {
	for i := range r.Steps {
		st := &r.Steps[i]
		if st.Kind != result.KindMain {
			continue
		}
		for j := range st.Streams {
			for k := range st.Streams[j].Totals {
				if t := &st.Streams[j].Totals[k]; t.Op == op {
					return t
				}
			}
		}
	}
	return nil
}
