package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/sysmon"
	"github.com/objbench/objbench/workload"
)

// System is what the machine did during a run, second by second, and the
// verdict drawn from it.
type System struct {
	sysmon.Timeline
	// LinkSpeed is the capacity given with --link-speed (bits/s), if any.
	LinkSpeed float64       `json:"link_bps,omitempty"`
	Verdicts  []StepVerdict `json:"verdicts,omitempty"`
}

// StepVerdict is the verdict on one main step, over its common window.
type StepVerdict struct {
	Step     int              `json:"step"`
	Findings []sysmon.Finding `json:"findings"`
}

// NewSystem files the timeline's samples under the steps they belong to
// and judges every main step over its common window.
func NewSystem(tl sysmon.Timeline, steps []loadgen.StepResult, m sysmon.Machine, t sysmon.Target) *System {
	spans := make([]sysmon.Span, len(steps))
	for i, s := range steps {
		spans[i] = sysmon.Span{Start: s.Start, End: s.Start.Add(s.Elapsed)}
	}
	sysmon.Assign(tl.Samples, spans)
	sys := &System{Timeline: tl, LinkSpeed: t.LinkSpeed}
	for i, s := range steps {
		if s.Kind != workload.KindMain {
			continue
		}
		sys.Verdicts = append(sys.Verdicts, StepVerdict{Step: i,
			Findings: sysmon.Verdict(tl.Samples, stepWindow(s), m, t)})
	}
	return sys
}

// stepWindow is the step's common window in wall-clock time: the part
// every stream measured; the whole step when the streams never overlapped.
func stepWindow(s loadgen.StepResult) sysmon.Span {
	lo, hi, any := 0.0, s.Elapsed.Seconds(), false
	for _, st := range s.Streams {
		if st.Window.Duration() <= 0 {
			continue
		}
		if !any {
			lo, hi, any = st.Window.Start, st.Window.End, true
			continue
		}
		lo, hi = max(lo, st.Window.Start), min(hi, st.Window.End)
	}
	if hi <= lo {
		lo, hi = 0, s.Elapsed.Seconds()
	}
	at := func(sec float64) time.Time { return s.Start.Add(time.Duration(sec * float64(time.Second))) }
	return sysmon.Span{Start: at(lo), End: at(hi)}
}

// writeVerdict prints the verdict lines: one block per main step, labelled
// when there is more than one. Steps too short to judge share one line, so
// a sweep of short steps does not bury the table.
func writeVerdict(w io.Writer, r *Result) {
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
func stepLabel(s *loadgen.StepResult) string {
	conc := 0
	for _, st := range s.Streams {
		conc += st.Concurrency
	}
	return s.Stage + " conc " + strconv.Itoa(conc)
}
