package htmlreport

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// barChart is a grouped bar chart: one group per category, in each a bar
// per series side by side, each bar with a note above it.
type barChart struct {
	title, y string
	groups   []string
	series   []bars
}

// bars is one series: a value and a note per group. Series take the
// palette's colours in order, as lines do, so a run keeps its colour on
// every chart of a page.
type bars struct {
	Name   string
	Values []float64
	Notes  []string
}

// plot builds the chart; nil when it has no groups.
func (c barChart) plot() (*plot.Plot, error) {
	if len(c.groups) == 0 || len(c.series) == 0 {
		return nil, nil
	}
	p := newPlot(c.title, "", c.y)
	// Groups share the data area's width with a bar's width of air
	// between them; wide bars for few groups look like walls.
	w := min(chartW*0.8/vg.Length(len(c.groups)*(len(c.series)+1)), vg.Points(48))
	for i, s := range c.series {
		b, err := plotter.NewBarChart(plotter.Values(s.Values), w)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.title, err)
		}
		b.Color, b.LineStyle.Width = palette[i%len(palette)], 0
		b.Offset = w * vg.Length(float64(i)-float64(len(c.series)-1)/2)
		p.Add(b)
		p.Legend.Add(s.Name, b)
		if err := addBarNotes(p, s, b.Offset); err != nil {
			return nil, fmt.Errorf("%s: %w", c.title, err)
		}
	}
	p.NominalX(c.groups...)
	p.X.Min, p.X.Max = -0.5, float64(len(c.groups))-0.5 // room for the outer groups' bars
	p.Y.Min = 0
	p.Y.Max *= 1.25 + 0.12*float64(len(c.series)) // headroom for the notes and the legend's lines
	return p, nil
}

// addBarNotes writes s's notes centred above its bars.
func addBarNotes(p *plot.Plot, s bars, offset vg.Length) error {
	xy := make(plotter.XYs, len(s.Values))
	for j, v := range s.Values {
		xy[j] = plotter.XY{X: float64(j), Y: v}
	}
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: xy, Labels: s.Notes})
	if err != nil {
		return err
	}
	for i := range l.TextStyle {
		l.TextStyle[i].Font.Size = vg.Points(8)
		l.TextStyle[i].XAlign, l.TextStyle[i].YAlign = text.XCenter, text.YBottom
	}
	l.Offset = vg.Point{X: offset, Y: vg.Points(2)}
	p.Add(l)
	return nil
}
