package report

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/objbench/objbench/result"
)

// aiFigures are one run's AI figures as compare sets them side by side:
// training's mean AU over its epochs (the lower of DLIO's and the AU at
// the computation asked, as the run's own verdict takes it), samples and
// bytes a second; a checkpoint's save and load time and rate, and its
// slowest rank; a lakehouse scan's queries a second and p99.
type aiFigures struct {
	kind   string // "training", "checkpoint" or "lake"
	what   string // "unet3d on h100 x4", "llama3-8b, 8 ranks"...
	values map[string]float64
}

// aiMetrics are the columns of each kind, in order, and how each is shown.
var aiMetrics = map[string][]struct{ name, unit string }{
	"training":   {{"AU", "%"}, {"samples/s", ""}, {"MiB/s", ""}},
	"checkpoint": {{"save s", "s"}, {"load s", "s"}, {"save GB/s", ""}, {"load GB/s", ""}, {"slowest rank s", "s"}},
	"lake":       {{"queries/s", ""}, {"scan p50 ms", "ms"}, {"scan p99 ms", "ms"}, {"read/stored", ""}},
}

// runAI gathers r's AI figures (nil when it has none).
func runAI(r *result.Run) *aiFigures {
	f := &aiFigures{values: map[string]float64{}}
	var epochs, saves, loads int
	for i := range r.Steps {
		s := &r.Steps[i]
		switch {
		case len(s.Training) > 0:
			t := &s.Training[0]
			f.kind, f.what = "training", fmt.Sprintf("%s on %s x%d", t.Model, t.Accelerator, t.Accelerators)
			f.values["AU"] += 100 * t.AUJudged()
			f.values["samples/s"] += t.SamplesPerSec()
			f.values["MiB/s"] += t.BytesPerSec() / (1 << 20)
			epochs++
		case s.Checkpoint != nil:
			c := s.Checkpoint
			f.kind, f.what = "checkpoint", fmt.Sprintf("%s, %d ranks", c.Model, c.Ranks)
			slow, _ := c.RankQuantile(1)
			f.values[c.Op+" s"] += c.Duration().Seconds()
			f.values[c.Op+" GB/s"] += c.BytesPerSec() / 1e9
			f.values["slowest rank s"] = max(f.values["slowest rank s"], slow.Seconds())
			if c.Op == "save" {
				saves++
			} else {
				loads++
			}
		case s.Lake != nil:
			l := s.Lake
			f.kind, f.what = "lake", fmt.Sprintf("%d files, %d of %d columns", l.Files, l.Projected, l.Columns)
			if el := s.Elapsed.Seconds(); el > 0 {
				f.values["queries/s"] = float64(l.Queries) / el
			}
			if p, err := l.ScanPercentiles(); err == nil {
				f.values["scan p50 ms"], f.values["scan p99 ms"] = float64(p.P50)/1000, float64(p.P99)/1000
			}
			if l.BytesScanned > 0 {
				f.values["read/stored"] = float64(l.BytesRead) / float64(l.BytesScanned)
			}
		}
	}
	if f.kind == "" {
		return nil
	}
	mean := func(names []string, n int) {
		for _, k := range names {
			if n > 0 {
				f.values[k] /= float64(n)
			}
		}
	}
	mean([]string{"AU", "samples/s", "MiB/s"}, epochs)
	mean([]string{"save s", "save GB/s"}, saves)
	mean([]string{"load s", "load GB/s"}, loads)
	return f
}

// WriteCompareAI sets the AI figures of each side (the mean of its
// runs) beside the first side's, with the change: the figures a user of
// objbench ai compares (AU, a checkpoint's time, a scan's rate), which the
// request table above does not show. Nothing when no side has any.
func WriteCompareAI(w io.Writer, labels []string, sides [][]*result.Run) error {
	figs := make([]*aiFigures, len(sides))
	kind := ""
	for i, side := range sides {
		var all []*aiFigures
		for _, r := range side {
			if f := runAI(r); f != nil {
				all = append(all, f)
			}
		}
		if len(all) == 0 {
			continue
		}
		figs[i] = meanOf(all)
		if kind == "" {
			kind = figs[i].kind
		}
	}
	if kind == "" {
		return nil
	}
	metrics := aiMetrics[kind]
	fmt.Fprintf(w, "\nAI figures (%s), each side the mean of its runs, changes against %s; not tested for significance\n", kind, labels[0])
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "RUN\tWHAT")
	for _, m := range metrics {
		fmt.Fprintf(tw, "\t%s", m.name)
	}
	fmt.Fprintln(tw)
	for i, f := range figs {
		if f == nil || f.kind != kind {
			fmt.Fprintf(tw, "%s\t(no %s figures)\n", labels[i], kind)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s", labels[i], f.what)
		for _, m := range metrics {
			v := f.values[m.name]
			cell := aiValue(v, m.unit)
			if i > 0 && figs[0] != nil && figs[0].kind == kind {
				switch b := figs[0].values[m.name]; {
				case m.unit == "%": // AU: the change in points
					cell += fmt.Sprintf(" %+.1f pts", v-b)
				case b != 0:
					cell += fmt.Sprintf(" %+.1f%%", pct(b, v))
				}
			}
			fmt.Fprintf(tw, "\t%s", cell)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// meanOf is the mean of several runs' figures (of the first's kind).
func meanOf(all []*aiFigures) *aiFigures {
	out := &aiFigures{kind: all[0].kind, what: all[0].what, values: map[string]float64{}}
	n := 0
	for _, f := range all {
		if f.kind != out.kind {
			continue
		}
		n++
		for k, v := range f.values {
			out.values[k] += v
		}
	}
	for k := range out.values {
		out.values[k] /= float64(n)
	}
	return out
}

func aiValue(v float64, unit string) string {
	switch unit {
	case "%":
		return fmt.Sprintf("%.1f%%", v)
	case "s":
		return (time.Duration(v * float64(time.Second))).Round(time.Millisecond).String()
	case "ms":
		return fmt.Sprintf("%.3g", v)
	}
	if v >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}
