package report

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/objbench/objbench/result"
)

// writeWorkers prints a merged run's workers, one line each, so that one
// slow or failing client shows, and says when the merge is partial.
func writeWorkers(w io.Writer, r *result.Run) {
	ws := r.Workers
	if ws == nil {
		return
	}
	fmt.Fprintf(w, "\nWorkers of run %s: %d of %d merged", r.RunID, len(ws.Parts), ws.Size)
	if p := r.Partial(); p != "" {
		fmt.Fprintf(w, ", PARTIAL %s", p)
		if len(ws.Missing) > 0 {
			fmt.Fprintf(w, " (no result from worker(s) %s)", ranks(ws.Missing))
		}
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RANK\tHOST\tOPS\tOPS/S\tP99\tERR\tCLOCK\tVERDICT\tENDED")
	for _, p := range ws.Parts {
		clock := "-"
		if p.Size > 1 {
			clock = fmt.Sprintf("%+.1f±%.1fms", ms64(p.ClockOffset), ms64(p.ClockError))
		}
		ended := p.Ended
		if ended == "" {
			ended = "ok"
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%s\t%d\t%s\t%s\t%s\n", p.Rank, p.Host, p.Ops, rate(p.OpsPerS), msi(p.P99us), p.Errors,
			clock, orDash(p.Verdict), ended)
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "CLOCK: how far the store's clock was ahead of the worker's, and within what; the merge put every worker's seconds on the store's clock")
}

func ms64(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func ranks(rs []int) string {
	s := ""
	for i, r := range rs {
		if i > 0 {
			s += ", "
		}
		s += strconv.Itoa(r)
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Warnings are what a reader must see before any figure of r: a merge
// that lacks workers or holds failed ones, a run that failed, a rank that
// two processes claimed, workers that died and were cleaned up for.
func Warnings(r *result.Run) []string {
	var out []string
	if ws := r.Workers; ws != nil && r.Partial() != "" {
		s := fmt.Sprintf("PARTIAL RESULT %s: the figures cover only the workers merged", r.Partial())
		if len(ws.Missing) > 0 {
			s += fmt.Sprintf("; no result from worker(s) %s", ranks(ws.Missing))
		}
		for _, p := range ws.Parts {
			if p.Ended != "" {
				s += fmt.Sprintf("; worker %d %s", p.Rank, p.Ended)
			}
		}
		out = append(out, s)
	}
	if f := r.Failure; f != nil && r.Workers == nil {
		s := "FAILED: " + f.Cause
		if f.Step != "" {
			s = "FAILED at " + f.Step + ": " + f.Cause
		}
		out = append(out, s)
	}
	parts := []result.Worker{}
	switch {
	case r.Worker != nil:
		parts = append(parts, *r.Worker)
	case r.Workers != nil:
		for _, p := range r.Workers.Parts {
			parts = append(parts, p.Worker)
		}
	}
	for _, w := range parts {
		for _, h := range w.Refused {
			out = append(out, fmt.Sprintf("WARNING: a second process (host %s) claimed worker %d's rank and was refused: check the launcher's ranks", h, w.Rank))
		}
		switch {
		case len(w.Adopted) > 0:
			out = append(out, fmt.Sprintf("WARNING: worker(s) %s died; worker %d cleaned up what they wrote", ranks(w.Adopted), w.Rank))
		case len(w.Gone) > 0 && r.Worker != nil:
			out = append(out, fmt.Sprintf("WARNING: worker(s) %s died before the run's end: its merge will be partial", ranks(w.Gone)))
		}
	}
	return out
}

// writeWarnings prints Warnings first, one line each.
func writeWarnings(w io.Writer, r *result.Run) {
	for _, s := range Warnings(r) {
		fmt.Fprintln(w, s)
	}
}
