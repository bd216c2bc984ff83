package htmlreport

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"io"
	"strings"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/objbench/objbench/report"
	"github.com/objbench/objbench/result"
)

// comparePage is what compare.html.tmpl shows.
type comparePage struct {
	Title string
	Runs  []runFacts
	// The comparison table as an HTML table: the lines the text table
	// prints before it (Before), its heading and lines, and its notes.
	Before, Notes []string
	Head          []cellHTML
	Lines         []lineHTML
	Rates         []figureHTML // each run's throughput beside the base's
	Latency       []figureHTML // distributions overlaid, one chart per op
	Time          []figureHTML // per-second throughput overlaid, one stack per op
	Missing       []string     // what could not be drawn, and why
}

// figureHTML is a chart as the compare page shows it: its title and its
// legend (the runs' colours) in HTML above it, where they wrap and never
// sit on the data, and the plot alone as SVG.
type figureHTML struct {
	Title  string
	Legend []runFacts // the runs' swatches
	SVG    template.HTML
}

// lineHTML and cellHTML are the comparison table's lines: Name cells
// (stage, stream, op, concurrency, run) align left, the figures right; a
// significant change stands out.
type lineHTML struct {
	First bool
	Cells []cellHTML
}

type cellHTML struct {
	Value, Change string
	Name, Sig     bool
}

// tableHTML turns the comparison table's heading and lines into cells.
func tableHTML(c *report.Comparison) ([]cellHTML, []lineHTML) {
	head := report.CompareHead(c)
	names := len(head) - 8 // the last eight columns are figures
	var hs []cellHTML
	for i, h := range head {
		hs = append(hs, cellHTML{Value: h, Name: i < names})
	}
	var ls []lineHTML
	for _, l := range report.CompareLines(c) {
		x := lineHTML{First: l.First}
		for i, cell := range l.Cells {
			x.Cells = append(x.Cells, cellHTML{Value: cell.Value, Change: cell.Change, Name: i < names,
				Sig: strings.HasSuffix(cell.Change, "*")})
		}
		ls = append(ls, x)
	}
	return hs, ls
}

// runFacts is one compared run: its label in its charts' colour, its
// facts (versions, machine, target) and its workload.
type runFacts struct {
	Label string
	Color template.CSS
	Facts [][2]string
	Spec  string
}

// WriteCompare renders c, the comparison of runs (base first, in the order
// of c.Labels), as one self-contained HTML page: each run's throughput
// beside the base's with the change and its mark, the latency
// distributions and the per-second throughput of the runs overlaid per op,
// the comparison table, and each run's facts and workload.
func WriteCompare(w io.Writer, c *report.Comparison, runs []*result.Run) error {
	if len(runs) != len(c.Labels) {
		return fmt.Errorf("compare page: %d result files for %d labels", len(runs), len(c.Labels))
	}
	pg, err := buildCompare(c, runs)
	if err != nil {
		return err
	}
	return execute(w, "compare.html.tmpl", pg)
}

func buildCompare(c *report.Comparison, runs []*result.Run) (*comparePage, error) {
	pg := &comparePage{Title: "objbench compare: " + strings.Join(c.Labels, " vs ")}
	pg.Head, pg.Lines = tableHTML(c)
	var tbl bytes.Buffer
	if err := report.WriteCompareTable(&tbl, c); err != nil {
		return nil, err
	}
	pg.Before, pg.Notes = aroundTable(tbl.String(), len(pg.Lines))
	for i, r := range runs {
		spec, err := specJSON(r)
		if err != nil {
			return nil, err
		}
		pg.Runs = append(pg.Runs, runFacts{Label: c.Labels[i], Color: cssColor(palette[i%len(palette)]),
			Facts: facts(r), Spec: spec})
	}
	var err error
	if pg.Rates, err = renderFigures(rateCharts(c)); err != nil {
		return nil, err
	}
	if err := perOpCharts(c, runs, pg); err != nil {
		return nil, err
	}
	for _, figs := range [][]figureHTML{pg.Rates, pg.Latency, pg.Time} {
		for i := range figs {
			figs[i].Legend = pg.Runs // a line or bar per run, in the runs' colours
		}
	}
	if ph, err := comparePhaseChart(c.Labels, runs); err != nil { // its legend is the phases', in the chart
		return nil, err
	} else if ph != "" {
		pg.Latency = append(pg.Latency, figureHTML{Title: "Where the time goes: median of each phase per request", SVG: ph})
	}
	return pg, nil
}

// aroundTable splits the text table's output into the lines before its
// heading and the notes after its lines lines.
func aroundTable(text string, lines int) (before, notes []string) {
	all := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range all {
		if strings.HasPrefix(l, "STAGE") {
			return all[:i], all[min(i+1+lines, len(all)):]
		}
		before = append(before, l)
	}
	return before, nil
}

// titled is a chart the compare page draws bare: its title and legend go
// in HTML.
type titled interface {
	figure
	heading() string
}

// renderFigures draws charts bare, each with its title for the page.
func renderFigures[F titled](cs []F) ([]figureHTML, error) {
	var out []figureHTML
	for _, c := range cs {
		svg, err := render(c)
		if err != nil {
			return nil, err
		}
		if svg != "" {
			out = append(out, figureHTML{Title: c.heading(), SVG: svg})
		}
	}
	return out, nil
}

// perOpCharts draws, per op of the main steps, the runs' latency
// distributions and per-second throughput overlaid.
func perOpCharts(c *report.Comparison, runs []*result.Run, pg *comparePage) error {
	hists := make([]map[string]*hdr.Histogram, len(runs))
	for i, r := range runs {
		var err error
		if hists[i], err = mainLatency(r); err != nil {
			return fmt.Errorf("%s: %w", c.Labels[i], err)
		}
	}
	// The per-op charts are of the main steps' ops: an op only of prepare
	// or cleanup is in the table and the bars, but its few ops in a
	// fraction of a second draw no curve worth a chart.
	ops, bytesOps := compareOps(c)
	var mainOps, others []string
	for _, op := range ops {
		if inMain(op, hists) {
			mainOps = append(mainOps, op)
		} else {
			others = append(others, op)
		}
	}
	if len(others) > 0 {
		pg.Missing = append(pg.Missing, strings.Join(others, ", ")+" ran in no main step: no distribution or per-second chart (the table and the bars show them)")
	}
	var err error
	if pg.Latency, err = latencyCharts(c.Labels, hists, mainOps); err != nil {
		return err
	}
	pg.Time, err = timeCharts(c.Labels, runs, mainOps, bytesOps)
	return err
}

func inMain(op string, hists []map[string]*hdr.Histogram) bool {
	for _, h := range hists {
		if h[op] != nil && h[op].TotalCount() > 0 {
			return true
		}
	}
	return false
}

// compareOps lists the compared ops in table order, and which move bytes.
func compareOps(c *report.Comparison) ([]string, map[string]bool) {
	var ops []string
	moves := map[string]bool{}
	for i := range c.Rows {
		row := &c.Rows[i]
		if _, seen := moves[row.Op]; !seen {
			ops = append(ops, row.Op)
		}
		moves[row.Op] = moves[row.Op] || movesBytes(row)
	}
	return ops, moves
}

func movesBytes(row *report.CompareRow) bool {
	for _, r := range row.Runs {
		if r != nil && r.Total.Bytes > 0 {
			return true
		}
	}
	return false
}

// rateCharts set each run's MiB/s (for rows that move bytes) and ops/s
// beside the base's, per table row, each bar noted with its change.
func rateCharts(c *report.Comparison) []barChart {
	const how = " (change against the base: * significant, ? not tested: too few runs)"
	mib := barChart{title: "Throughput per op" + how, y: "MiB/s", horizontal: true, bare: true}
	ops := barChart{title: "Operations per second per op" + how, y: "ops/s", horizontal: true, bare: true}
	for _, l := range c.Labels {
		mib.series = append(mib.series, bars{Name: l})
		ops.series = append(ops.series, bars{Name: l})
	}
	for i := range c.Rows {
		row := &c.Rows[i]
		name := row.Label()
		if c.MultiStream {
			name = row.Stage + " " + row.Stream + " " + row.Op
		}
		if movesBytes(row) {
			mib.addGroup(name, row, report.MetricThroughput, func(t result.OpTotal) float64 { return t.BytesPerSec / (1 << 20) })
		}
		ops.addGroup(name, row, report.MetricOps, func(t result.OpTotal) float64 { return t.OpsPerSec })
	}
	return []barChart{mib, ops}
}

// addGroup adds row as a group: each run's value, noted with its change
// in m against the base, or "missing".
func (b *barChart) addGroup(name string, row *report.CompareRow, m report.Metric, value func(result.OpTotal) float64) {
	b.groups = append(b.groups, name)
	for i, r := range row.Runs {
		v, note := 0.0, "missing"
		if r != nil {
			v, note = value(r.Total), ""
			if i > 0 && row.Runs[0] != nil {
				note = row.Changes[i-1][m].String()
			}
		}
		b.series[i].Values = append(b.series[i].Values, v)
		b.series[i].Notes = append(b.series[i].Notes, note)
	}
}

// latencyCharts overlay the runs' latency distributions over their main
// steps (hists, one map per run), one chart per op.
func latencyCharts(labels []string, hists []map[string]*hdr.Histogram, ops []string) ([]figureHTML, error) {
	var charts []chart
	for _, op := range ops {
		// Log-log: runs whose bodies differ by a fraction of a millisecond
		// stay apart beside a tail of seconds.
		c := chart{title: op + ": latency distribution, main steps (HDR percentile plot, log scales)", x: "percentile",
			y: "ms", logX: true, logY: true, pctTicks: true, bare: true}
		for i, h := range hists {
			l := percentileLine(labels[i], h[op])
			if l == nil { // keeps its place, so the other runs keep their colours
				l = &line{Name: labels[i]}
			}
			c.lines = append(c.lines, l)
		}
		charts = append(charts, c)
	}
	return renderFigures(charts)
}

// timeCharts overlay the runs' per-second MiB/s (ops that move bytes) and
// ops/s, one stack per op; each run's time counts from its first step.
func timeCharts(labels []string, runs []*result.Run, ops []string, bytesOps map[string]bool) ([]figureHTML, error) {
	series := make([]opSeries, len(runs))
	span := [2]float64{0, 1}
	for i, r := range runs {
		var err error
		if series[i], err = overTime(r); err != nil {
			return nil, fmt.Errorf("%s: %w", labels[i], err)
		}
		span[1] = max(span[1], series[i].Span[1])
	}
	const sec = "seconds since the run's first step"
	var out []figureHTML
	for _, op := range ops {
		var mib, n []*line
		for i := range runs {
			mib = append(mib, relabel(series[i].MiBs, op, labels[i]))
			n = append(n, relabel(series[i].Ops, op, labels[i]))
		}
		var charts []chart
		title := op + ": operations per second"
		if bytesOps[op] {
			charts = append(charts, chart{x: sec, y: "MiB/s", lines: mib, span: &span, bare: true})
			title = op + ": throughput (MiB/s) and operations per second"
		}
		charts = append(charts, chart{x: sec, y: "ops/s", lines: n, span: &span, bare: true})
		svg, err := renderStack(charts)
		if err != nil {
			return nil, err
		}
		if svg != "" {
			out = append(out, figureHTML{Title: title, SVG: svg})
		}
	}
	return out, nil
}

// relabel is the line named op among ls, renamed to label; an empty line
// when there is none.
func relabel(ls []*line, op, label string) *line {
	for _, l := range ls {
		if l.Name == op {
			return &line{Name: label, Segments: l.Segments}
		}
	}
	return &line{Name: label}
}

func cssColor(c color.RGBA) template.CSS {
	return template.CSS(fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)) // our palette, not input
}
