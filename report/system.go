package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/sysmon"
)

// WriteVerdict prints the verdict lines of a run (as its table ends).
func WriteVerdict(w io.Writer, r *result.Run) { writeVerdict(w, r) }

// writeVerdict prints the verdict lines: one block per main step, labelled
// when there is more than one. Steps too short to judge share one line, so
// a sweep of short steps does not bury the table.
func writeVerdict(w io.Writer, r *result.Run) {
	if r.System == nil {
		return
	}
	var short []string
	for _, v := range r.System.Verdicts {
		label := "verdict"
		if len(r.System.Verdicts) > 1 && v.Step < len(r.Steps) {
			label += " " + stepLabel(&r.Steps[v.Step])
		}
		for _, f := range v.Findings {
			if f.Kind == sysmon.KindTooShort && len(r.System.Verdicts) > 1 {
				short = append(short, strings.TrimPrefix(label, "verdict "))
				continue
			}
			fmt.Fprintf(w, "%s: %s\n", label, f.Text)
		}
	}
	if len(short) > 0 {
		fmt.Fprintf(w, "verdict: too short to judge the bottleneck (under 1 s of samples): %s\n", strings.Join(short, ", "))
	}
	for _, n := range r.System.Notes {
		fmt.Fprintf(w, "system: %s\n", n)
	}
}

// stepLabel names a step the way the table does: stage and concurrency.
func stepLabel(s *result.Step) string {
	conc := 0
	for _, st := range s.Streams {
		conc += st.Concurrency
	}
	return s.Stage + " conc " + strconv.Itoa(conc)
}
