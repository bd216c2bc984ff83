package htmlreport

import (
	"fmt"
	"html/template"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/objbench/objbench/report"
	"github.com/objbench/objbench/result"
)

// phaseChart is "where the time goes": per op (of each step), a
// horizontal bar of its requests' median phases stacked in the order
// they happen, so the part that moved stands out.
type phaseChart struct{ rows []report.PhaseRow }

func (c phaseChart) plot() (*plot.Plot, error) {
	if len(c.rows) == 0 {
		return nil, nil
	}
	p := newPlot("Where the time goes: median of each phase per request", "ms", "")
	names := make([]string, len(c.rows))
	for i, r := range c.rows {
		names[len(c.rows)-1-i] = fmt.Sprintf("%s %s c%d", r.Stage, r.Op, r.Concurrency) // the first row on top
	}
	var below *plotter.BarChart
	for ph := range result.NumPhases {
		vals := make(plotter.Values, len(c.rows))
		any := false
		for i, r := range c.rows {
			vals[len(c.rows)-1-i] = float64(r.P50[ph]) / 1000
			any = any || r.P50[ph] > 0
		}
		if !any {
			continue
		}
		b, err := plotter.NewBarChart(vals, vg.Points(14))
		if err != nil {
			return nil, err
		}
		b.Horizontal, b.LineStyle.Width = true, 0
		b.Color = palette[ph%len(palette)]
		if below != nil {
			b.StackOn(below)
		}
		below = b
		p.Add(b)
		p.Legend.Add(result.PhaseNames[ph], b)
	}
	if below == nil {
		return nil, nil
	}
	p.NominalY(names...)
	p.Y.Tick.Label.Font.Size = vg.Points(9)
	p.Y.Padding = vg.Points(14) // browsers' fonts run wider than gonum measures: keep the labels off the bars
	p.X.Min = 0
	p.X.Max *= 1.35 // room for the legend
	return p, nil
}

// phaseCharts draws the phase chart of r ("" when r has no phases).
func phaseCharts(r *result.Run) (template.HTML, error) {
	rows, err := report.PhaseRows(r)
	if err != nil {
		return "", err
	}
	c := phaseChart{rows: rows}
	pl, err := c.plot()
	if err != nil || pl == nil {
		return "", err
	}
	return render(c)
}

// comparePhaseChart draws the runs' phases in one chart, each run's bars
// named by its label ("" when none has phases).
func comparePhaseChart(labels []string, runs []*result.Run) (template.HTML, error) {
	var rows []report.PhaseRow
	for i, r := range runs {
		rs, err := report.PhaseRows(r)
		if err != nil {
			return "", fmt.Errorf("%s: %w", labels[i], err)
		}
		for _, x := range rs {
			x.Stage = labels[i] + ": " + x.Stage
			rows = append(rows, x)
		}
	}
	c := phaseChart{rows: rows}
	pl, err := c.plot()
	if err != nil || pl == nil {
		return "", err
	}
	return render(c)
}
