package sysmon

import (
	"fmt"
	"time"

	"github.com/objbench/objbench/result"
)

// Judge files the timeline's samples under the steps they belong to
// and judges every main step over its common window.
func Judge(tl Timeline, steps []result.Step, m Machine, t Target) *result.System {
	spans := make([]Span, len(steps))
	for i, s := range steps {
		spans[i] = Span{Start: s.Start, End: s.Start.Add(s.Elapsed)}
	}
	Assign(tl.Samples, spans)
	if p := tl.TargetProcess; p != nil {
		t.Process = fmt.Sprintf("%s (pid %d)", p.Command, p.PID)
	}
	sys := &result.System{Timeline: tl, LinkSpeed: t.LinkSpeed}
	for i, s := range steps {
		if s.Kind != result.KindMain {
			continue
		}
		sys.Verdicts = append(sys.Verdicts, result.StepVerdict{Step: i,
			Findings: Verdict(tl.Samples, stepWindow(s), m, t)})
	}
	return sys
}

// stepWindow is the step's common window in wall-clock time: the part
// every stream measured; the whole step when the streams never overlapped.
func stepWindow(s result.Step) Span {
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
	return Span{Start: at(lo), End: at(hi)}
}
