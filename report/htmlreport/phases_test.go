package htmlreport_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/objbench/objbench/report"
	"github.com/objbench/objbench/report/htmlreport"
	"github.com/objbench/objbench/result"
)

// A result with request phases gets the stacked "where the time goes"
// chart, one bar per op, a legend entry per phase that took time; one
// without phases (older results, file targets) gets none.
func TestPhaseChart(t *testing.T) {
	r := sweepResult(t)
	var plain bytes.Buffer
	if err := htmlreport.Write(&plain, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "Where the time goes: median") {
		t.Error("a phase chart for a result without phases")
	}
	st := &r.Steps[len(r.Steps)-1].Streams[0]
	var ph [result.NumPhases]string
	ph[2], ph[3], ph[5], ph[6] = histogram(t, 300, 400), histogram(t, 2000, 2500), histogram(t, 5000, 9000), histogram(t, 80, 90)
	st.Phases = []result.OpPhases{{Op: "GET", Requests: 2, Phases: ph, NewConns: 2}}
	var b bytes.Buffer
	if err := htmlreport.Write(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	i := strings.Index(page, "Where the time goes: median")
	if i < 0 {
		t.Fatal("no phase chart in the page")
	}
	chart := page[i:]
	chart = chart[:strings.Index(chart, "</svg>")]
	for _, want := range []string{"connect", "tls", "wait", "receive", "main GET c"} {
		if !strings.Contains(chart, want) {
			t.Errorf("the phase chart lacks %q", want)
		}
	}
	if strings.Contains(chart, ">dns<") || strings.Contains(chart, ">send<") {
		t.Error("the legend names phases that took no time")
	}
}

// The compare page draws every run's phases in one chart, its bars named
// by the run's label.
func TestComparePhaseChart(t *testing.T) {
	a, b := sweepResult(t), sweepResult(t)
	var ph [result.NumPhases]string
	ph[3], ph[5] = histogram(t, 2000, 2500), histogram(t, 5000, 9000)
	b.Steps[len(b.Steps)-1].Streams[0].Phases = []result.OpPhases{{Op: "GET", Requests: 2, Phases: ph}}
	c := report.Compare(a, b)
	c.Labels = []string{"base.json", "tls.json"}
	var out bytes.Buffer
	if err := htmlreport.WriteCompare(&out, c, []*result.Run{a, b}); err != nil {
		t.Fatal(err)
	}
	page := out.String()
	i := strings.Index(page, "Where the time goes: median")
	if i < 0 {
		t.Fatal("no phase chart on the compare page")
	}
	if chart := page[i:]; !strings.Contains(chart[:strings.Index(chart, "</svg>")], "tls.json: main GET") {
		t.Error("the phase chart does not name the run")
	}
}
