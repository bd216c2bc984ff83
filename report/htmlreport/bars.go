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
	// horizontal draws a group per line, its name on the left and its
	// bars' notes at their ends: names of any length never overlap, and
	// the chart grows with its groups. bare draws no title and no legend
	// (the page shows them).
	horizontal, bare bool
}

func (c barChart) heading() string { return c.title }

// barH is a horizontal bar's thickness, groupGap the air between groups.
const barH, groupGap = 13, 12

// height is a horizontal chart's: a line per group, axes and margins.
func (c barChart) height() vg.Length {
	if !c.horizontal {
		return chartH
	}
	n := len(c.groups)*(len(c.series)*barH+groupGap) + 60
	return max(vg.Points(float64(n)), 1.6*vg.Inch)
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
	if c.horizontal {
		return c.plotHorizontal()
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

// plotHorizontal draws a line per group, the first on top: its bars side
// by side, each noted at its end.
func (c barChart) plotHorizontal() (*plot.Plot, error) {
	title := c.title
	if c.bare {
		title = ""
	}
	p := newPlot(title, c.y, "")
	n := len(c.groups)
	w := vg.Points(barH)
	names := make([]string, n)
	for j, g := range c.groups {
		names[n-1-j] = g
	}
	for i, s := range c.series {
		vals, notes := make(plotter.Values, n), make([]string, n)
		for j := range s.Values {
			vals[n-1-j], notes[n-1-j] = s.Values[j], s.Notes[j]
		}
		b, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.title, err)
		}
		b.Horizontal, b.Color, b.LineStyle.Width = true, palette[i%len(palette)], 0
		// The first series on top within its group.
		b.Offset = -w * vg.Length(float64(i)-float64(len(c.series)-1)/2)
		p.Add(b)
		if !c.bare {
			p.Legend.Add(s.Name, b)
		}
		xy := make(plotter.XYs, n)
		for j, v := range vals {
			xy[j] = plotter.XY{X: v, Y: float64(j)}
		}
		l, err := plotter.NewLabels(plotter.XYLabels{XYs: xy, Labels: notes})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.title, err)
		}
		for k := range l.TextStyle {
			l.TextStyle[k].Font.Size = vg.Points(8)
			l.TextStyle[k].XAlign, l.TextStyle[k].YAlign = text.XLeft, text.YCenter
		}
		l.Offset = vg.Point{X: vg.Points(3), Y: b.Offset}
		p.Add(l)
	}
	p.NominalY(names...)
	p.Y.Tick.Label.Font.Size = vg.Points(9)
	// Browsers draw the labels in fonts wider than gonum measures, from
	// the x gonum computed: room for a tenth more keeps them off the bars.
	longest := 0
	for _, g := range names {
		longest = max(longest, len(g))
	}
	p.Y.Padding = vg.Points(6 + 0.6*float64(longest))
	p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5
	p.X.Min = 0
	p.X.Max *= 1.3 // room for the notes at the longest bar's end
	p.X.Tick.Marker = edgeTicks{p.X.Tick.Marker}
	return p, nil
}

// edgeTicks leaves unlabelled the ticks at the far end of an axis, whose
// label, centred on the tick, the SVG's edge would cut.
type edgeTicks struct{ plot.Ticker }

func (e edgeTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := e.Ticker.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" && ts[i].Value > hi-(hi-lo)*0.06 {
			ts[i].Label = ""
		}
	}
	return ts
}
