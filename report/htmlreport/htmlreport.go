package htmlreport

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"time"

	"github.com/objbench/objbench/report"
	"github.com/objbench/objbench/result"
)

//go:embed *.html.tmpl
var templates embed.FS

// execute renders the page template name (a file name) with data.
func execute(w io.Writer, name string, data any) error {
	tmpl, err := template.ParseFS(templates, "*.html.tmpl")
	if err != nil {
		return err
	}
	return tmpl.ExecuteTemplate(w, name, data)
}

// page is what the template shows.
type page struct {
	Title string
	Facts [][2]string
	// Warnings come first on the page: a partial or failed run.
	Warnings []string
	Verdict  []string
	Table    string
	Spec     string
	Time     []template.HTML // charts on the run's time axis
	Shape    []template.HTML // distribution and sweep
	Missing  []string        // what could not be drawn, and why
}

// Write renders r as one self-contained HTML page.
func Write(w io.Writer, r *result.Run) error {
	pg, err := build(r)
	if err != nil {
		return err
	}
	return execute(w, "page.html.tmpl", pg)
}

func build(r *result.Run) (*page, error) {
	pg := &page{Title: "objbench " + r.RunID, Warnings: append(report.Warnings(r), report.AIWarnings(r)...), Facts: facts(r), Verdict: verdict(r)}
	var tbl bytes.Buffer
	if err := report.WriteTable(&tbl, r); err != nil {
		return nil, err
	}
	pg.Table = tbl.String()
	spec, err := specJSON(r)
	if err != nil {
		return nil, err
	}
	pg.Spec = spec

	stack, err := TimeCharts(r)
	if err != nil {
		return nil, err
	}
	if system(r) == nil {
		pg.Missing = append(pg.Missing, "no system timeline: this result was written without sampling the machine")
	}
	if stack != "" {
		pg.Time = []template.HTML{stack}
	}
	if pg.Shape, err = shapeCharts(r, pg); err != nil {
		return nil, err
	}
	if ph, err := phaseCharts(r); err != nil {
		return nil, err
	} else if ph != "" {
		pg.Shape = append(pg.Shape, ph)
	}
	return pg, nil
}

// TimeCharts draws the charts on the run's time axis (throughput and
// ops/s per op, the machine's CPU, disk and network when sampled, latency
// p50/p99/max per second) stacked in one SVG element, their x axes
// aligned; "" when r has nothing to draw yet. It reads only r's steps
// (start, elapsed, per-second records) and system samples, so a partial
// result drawn while the run goes on gives the page's charts so far.
func TimeCharts(r *result.Run) (template.HTML, error) {
	ts, err := overTime(r)
	if err != nil {
		return "", err
	}
	span := &ts.Span
	const sec = "seconds since the first step"
	charts := []chart{
		{title: "Throughput per op", x: sec, y: "MiB/s", lines: ts.MiBs, span: span},
		{title: "Operations per op", x: sec, y: "ops/s", lines: ts.Ops, span: span},
	}
	if sys := system(r); sys != nil {
		charts = append(charts,
			chart{title: "CPU (whole machine)", x: sec, y: "%", lines: sys.CPU, span: span},
			chart{title: "Disk", x: sec, y: "MiB/s", lines: sys.Disk, span: span},
			chart{title: "Network", x: sec, y: "MiB/s", lines: sys.Net, span: span})
	}
	charts = append(charts, chart{title: "Latency per second, all ops (log scale)", x: sec, y: "ms",
		lines: ts.Latency, span: span, logY: true})
	return renderStack(charts)
}

// shapeCharts are the distribution and the sweep curve.
func shapeCharts(r *result.Run, pg *page) ([]template.HTML, error) {
	dist, err := distribution(r)
	if err != nil {
		return nil, err
	}
	charts := []chart{{title: "Latency distribution, main steps (HDR percentile plot)", x: "percentile",
		y: "ms", lines: dist, logX: true, pctTicks: true}}
	pts, err := sweep(r)
	if err != nil {
		return nil, err
	}
	au, isAI := auChart(r)
	switch {
	case isAI:
		charts = append(charts, au)
	case len(pts) >= 2:
		charts = append(charts, sweepChart(pts))
	default:
		pg.Missing = append(pg.Missing, "no throughput-latency curve: the run has a single main step (sweep --concurrency or --rate for one)")
	}
	return renderAll(charts)
}

func sweepChart(pts []sweepPoint) chart {
	useMiB := false
	for _, p := range pts {
		useMiB = useMiB || p.MiBPerS > 0
	}
	x, unit := func(p sweepPoint) float64 { return p.OpsPerSec }, "ops/s"
	if useMiB {
		x, unit = func(p sweepPoint) float64 { return p.MiBPerS }, "MiB/s"
	}
	p99, p50 := &line{Name: "p99"}, &line{Name: "p50"}
	labels := make([]string, len(pts))
	for i, p := range pts {
		p99.add(0, point{x(p), p.P99})
		p50.add(0, point{x(p), p.P50})
		labels[i] = p.Label
	}
	return chart{title: "Throughput vs latency across the sweep", x: "throughput, " + unit, y: "ms",
		lines: []*line{p99, p50}, points: true, labels: labels}
}

func renderAll[F figure](cs []F) ([]template.HTML, error) {
	var out []template.HTML
	for _, c := range cs {
		svg, err := render(c)
		if err != nil {
			return nil, err
		}
		if svg != "" {
			out = append(out, svg)
		}
	}
	return out, nil
}

// specJSON is r's workload as the page shows it.
func specJSON(r *result.Run) (string, error) {
	if len(r.Spec) == 0 {
		return "(not recorded)", nil
	}
	var b bytes.Buffer
	err := json.Indent(&b, r.Spec, "", "  ")
	return b.String(), err
}

func facts(r *result.Run) [][2]string {
	m := r.Machine
	f := [][2]string{
		{"run", r.RunID},
		{"objbench", r.Tool.Version},
		{"started", r.Started.UTC().Format(time.RFC3339)},
		{"duration", r.Finished.Sub(r.Started).Round(time.Millisecond).String()},
		{"target", r.Target.Describe()},
		{"machine", fmt.Sprintf("%s: %s/%s, kernel %s, %d CPUs %s, %s memory", m.Hostname, m.OS, m.Arch,
			m.Kernel, m.CPUs, m.CPUModel, report.Bytes(float64(m.MemoryBytes)))},
		{"go", m.GoVersion},
	}
	if ws := r.Workers; ws != nil {
		w := fmt.Sprintf("%d of %d merged", len(ws.Parts), ws.Size)
		if p := r.Partial(); p != "" {
			w += ", PARTIAL " + p
		}
		f = append(f, [2]string{"workers", w})
	}
	switch {
	case r.Interrupted:
		f = append(f, [2]string{"outcome", "interrupted"})
	case r.Aborted != "":
		f = append(f, [2]string{"outcome", "stopped early: " + r.AbortDetail})
	}
	return f
}

func verdict(r *result.Run) []string {
	if r.System == nil {
		return nil
	}
	var out []string
	for _, v := range r.System.Verdicts {
		label := "step " + strconv.Itoa(v.Step)
		if v.Step < len(r.Steps) {
			s := &r.Steps[v.Step]
			label = s.Stage + " conc " + strconv.Itoa(concurrency(s))
		}
		for _, f := range v.Findings {
			out = append(out, label+": "+f.Text)
		}
	}
	for _, n := range r.System.Notes {
		out = append(out, "system: "+n)
	}
	return out
}
