package htmlreport

import (
	"bytes"
	"fmt"
	"html"
	"html/template"
	"image/color"
	"math"
	"regexp"
	"strconv"
	"strings"

	xfont "golang.org/x/image/font"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Chart sizes: the time charts share a width so their x axes line up.
const (
	chartW = 9 * vg.Inch
	chartH = 2.8 * vg.Inch
)

// palette is a colour-blind-safe set (Okabe-Ito).
var palette = [...]color.RGBA{
	{0, 114, 178, 255}, {213, 94, 0, 255}, {0, 158, 115, 255}, {204, 121, 167, 255},
	{230, 159, 0, 255}, {86, 180, 233, 255}, {0, 0, 0, 255}, {240, 228, 66, 255},
}

// chart describes one plot.
type chart struct {
	title, x, y string
	lines       []*line
	span        *[2]float64 // fixed x range (time charts)
	logX, logY  bool
	pctTicks    bool // x is 1/(1-q): label ticks as percentiles
	points      bool // draw markers (few points)
	labels      []string
	// bare draws no title and no legend: the page shows them in HTML
	// (the compare page), where they wrap and never sit on the data.
	bare bool
}

func (c chart) heading() string { return c.title }

// newPlot is an empty plot in the pages' style: titled, gridded, legend on top.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, x, y
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p
}

// plot builds c's plot; nil when it has nothing to draw.
func (c chart) plot() (*plot.Plot, error) {
	title := c.title
	if c.bare {
		title = ""
	}
	p := newPlot(title, c.x, c.y)
	if c.logY {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	}
	if c.logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	if c.pctTicks {
		p.X.Tick.Marker = percentileTicks{}
	}
	empty := true
	for i, l := range c.lines {
		col := palette[i%len(palette)]
		for j, seg := range l.Segments {
			xys := xys(seg, c.logX, c.logY)
			if len(xys) == 0 {
				continue
			}
			empty = false
			ln, err := plotter.NewLine(xys)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", c.title, err)
			}
			ln.Color, ln.Width = col, vg.Points(1.5)
			p.Add(ln)
			if c.points || len(xys) == 1 { // a lone second (a short step) draws no line
				if err := addPoints(p, xys, col, c.labels, c.points && i == 0); err != nil {
					return nil, fmt.Errorf("%s: %w", c.title, err)
				}
			}
			if j == firstSegment(l) && !c.bare {
				p.Legend.Add(l.Name, ln)
			}
		}
	}
	if empty {
		return nil, nil
	}
	if c.span != nil { // after Add, which widens the axes to the data
		p.X.Min, p.X.Max = c.span[0], c.span[1]
	}
	if c.bare { // the compare page: no label cut at the SVG's right edge
		p.X.Tick.Marker = edgeTicks{p.X.Tick.Marker}
	}
	headroom := 0.3 // for the legend
	if c.bare {
		headroom = 0.05
	}
	if c.logY {
		p.Y.Max *= math.Pow(4, headroom/0.3)
	} else {
		p.Y.Min = min(p.Y.Min, 0)
		p.Y.Max += (p.Y.Max - p.Y.Min) * headroom
	}
	return p, nil
}

// figure is a chart of any kind; its plot is nil when it has nothing to draw.
type figure interface {
	plot() (*plot.Plot, error)
}

// render draws c as an SVG element ready to inline in the page.
func render(c figure) (template.HTML, error) {
	p, err := c.plot()
	if err != nil || p == nil {
		return "", err
	}
	h := chartH
	if t, ok := c.(tall); ok {
		h = t.height()
	}
	cv := vgsvg.New(chartW, h)
	p.Draw(draw.New(cv))
	return svgElement(cv)
}

// tall is a figure whose height depends on what it holds (a bar per row).
type tall interface{ height() vg.Length }

// renderStack draws charts one above the other in one SVG, their data
// areas aligned so that charts on one time axis line up.
func renderStack(cs []chart) (template.HTML, error) {
	var rows [][]*plot.Plot
	for _, c := range cs {
		p, err := c.plot()
		if err != nil {
			return "", err
		}
		if p != nil {
			rows = append(rows, []*plot.Plot{p})
		}
	}
	if len(rows) == 0 {
		return "", nil
	}
	cv := vgsvg.New(chartW, chartH*vg.Length(len(rows)))
	tiles := draw.Tiles{Rows: len(rows), Cols: 1, PadY: vg.Points(6)}
	canvases := plot.Align(rows, tiles, draw.New(cv))
	for i, row := range rows {
		row[0].Draw(canvases[i][0])
	}
	return svgElement(cv)
}

func svgElement(cv *vgsvg.Canvas) (template.HTML, error) {
	var b bytes.Buffer
	if _, err := cv.WriteTo(&b); err != nil {
		return "", err
	}
	svg := b.String()
	if i := strings.Index(svg, "<svg"); i > 0 { // drop the XML prolog: the page is HTML
		svg = svg[i:]
	}
	return template.HTML(fitText(svg)), nil // our own drawing: it holds no text from the result but op names and labels gonum escapes
}

// svgText is a text element as vgsvg writes it: its style, then its text.
var svgText = regexp.MustCompile(`(?s)(<text [^>]*font-weight:(\w+);font-style:(\w+);font-size:([0-9.]+)px")>([^<]*)</text>`)

// fitText gives every text the width gonum measured for it (textLength):
// gonum lays a chart out with its own font's metrics, and a browser
// without that font draws the text in a wider one, into the bars and
// the next label and past the chart's edge.
func fitText(svg string) string {
	return svgText.ReplaceAllStringFunc(svg, func(m string) string {
		g := svgText.FindStringSubmatch(m)
		size, err := strconv.ParseFloat(g[4], 64)
		if err != nil {
			return m
		}
		f := plot.DefaultFont
		if g[2] == "bold" {
			f.Weight = xfont.WeightBold
		}
		if g[3] == "italic" {
			f.Style = xfont.StyleItalic
		}
		face := font.DefaultCache.Lookup(f, vg.Points(size))
		w := face.Width(html.UnescapeString(g[5])).Points()
		return fmt.Sprintf(`%s textLength="%.4g" lengthAdjust="spacingAndGlyphs">%s</text>`, g[1], w, g[5])
	})
}

func addPoints(p *plot.Plot, xy plotter.XYs, col color.Color, labels []string, withLabels bool) error {
	sc, err := plotter.NewScatter(xy)
	if err != nil {
		return err
	}
	sc.Color, sc.Shape = col, draw.CircleGlyph{}
	p.Add(sc)
	if withLabels && labels != nil {
		return addLabels(p, xy, labels)
	}
	return nil
}

func firstSegment(l *line) int {
	for j, s := range l.Segments {
		if len(s) > 0 {
			return j
		}
	}
	return -1
}

// xys drops points a log axis cannot show.
func xys(seg []point, logX, logY bool) plotter.XYs {
	out := make(plotter.XYs, 0, len(seg))
	for _, p := range seg {
		if (logX && p.X <= 0) || (logY && p.Y <= 0) {
			continue
		}
		out = append(out, plotter.XY{X: p.X, Y: p.Y})
	}
	return out
}

func addLabels(p *plot.Plot, xy plotter.XYs, names []string) error {
	if len(names) != len(xy) {
		return nil
	}
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: xy, Labels: names})
	if err != nil {
		return err
	}
	for i := range l.TextStyle {
		l.TextStyle[i].Font.Size = vg.Points(8)
		l.Offset = vg.Point{X: vg.Points(4), Y: vg.Points(4)}
	}
	p.Add(l)
	return nil
}

// percentileTicks labels a 1/(1-q) axis with percentiles: 0%, 90%, 99%...
type percentileTicks struct{}

func (percentileTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for k := 0; math.Pow(10, float64(k)) <= hi*1.0001; k++ {
		x := math.Pow(10, float64(k))
		if x < lo*0.9999 {
			continue
		}
		q := 100 * (1 - 1/x)
		label := strconv.FormatFloat(q, 'f', max(k-2, 0), 64) + "%"
		ts = append(ts, plot.Tick{Value: x, Label: label})
	}
	return ts
}
