package report

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

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
	fmt.Fprintf(w, "\nReplay of %s (%s) at speed %s%s: %d requests, %d objects prepared first", strings.Join(rp.Sources, " "), rp.Format, speed,
		loopNote(r, rp), rp.Issued, rp.Prepared)
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
	writePace(w, r, rp)
	if rp.Held > 0 {
		fmt.Fprintf(w, "%d requests waited for an earlier request of their key to end: the log's order of the ops on one key is kept\n", rp.Held)
	}
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

// loopNote says how the requests were paced.
func loopNote(r *result.Run, rp *result.Replay) string {
	var s string
	switch rp.Loop {
	case "open":
		s = ", open loop"
	case "closed":
		s = ", closed loop"
		if n := mainConcurrency(r); n > 0 {
			s += fmt.Sprintf(" on %d workers", n)
			if n == rp.LogConcurrency {
				s += " (the log's most in flight)"
			}
		}
	}
	if rp.Burst {
		s += ", each second's requests at once (--burst)"
	}
	return s
}

// writePace sets the replay's rate beside the log's: a replay that fell
// behind the log measured a slower store than the log saw, or a client
// that could not keep up.
func writePace(w io.Writer, r *result.Run, rp *result.Replay) {
	el := mainElapsed(r)
	if rp.Speed <= 0 || rp.Span <= 0 || el <= 0 || rp.Issued < 2 {
		return
	}
	logRate := float64(rp.Issued-1) / rp.Span * rp.Speed
	rate := float64(rp.Issued-1) / el.Seconds()
	ratio := rate / logRate
	lead := "pace"
	if ratio < 0.95 {
		lead = "warning: the replay fell behind the log"
	}
	fmt.Fprintf(w, "%s: the log's requests span %.3f s (%.0f/s at speed %g); the replay's took %.3f s (%.0f/s, %.1f%% of the log's rate)\n",
		lead, rp.Span/rp.Speed, logRate, rp.Speed, el.Seconds(), rate, 100*ratio)
}

// mainElapsed is the time the replay's main step took.
func mainElapsed(r *result.Run) time.Duration {
	for i := range r.Steps {
		if r.Steps[i].Kind == result.KindMain {
			return r.Steps[i].Elapsed
		}
	}
	return 0
}

// mainConcurrency is the workers the replay's main step started.
func mainConcurrency(r *result.Run) int {
	for i := range r.Steps {
		if st := &r.Steps[i]; st.Kind == result.KindMain && len(st.Streams) > 0 {
			return st.Streams[0].Concurrency
		}
	}
	return 0
}
