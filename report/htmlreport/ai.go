package htmlreport

import (
	"fmt"
	"slices"

	"github.com/objbench/objbench/result"
)

// auChart is an AI training run's AU against its accelerators: each
// find-max round and each epoch a point (the AU that decides: the lower
// of DLIO's and the one at the computation asked), beside the target; ok
// is false for runs without training.
func auChart(r *result.Run) (chart, bool) {
	type pt struct {
		x, au float64
		label string
	}
	var pts []pt
	target := 0.0
	for i := range r.Steps {
		for j := range r.Steps[i].Training {
			t := &r.Steps[i].Training[j]
			label := fmt.Sprintf("round %d", j+1)
			if t.Epoch > 0 {
				label = fmt.Sprintf("epoch %d", t.Epoch)
			}
			pts = append(pts, pt{float64(t.Accelerators), 100 * t.AUJudged(), label})
			target = max(target, t.AUTarget)
		}
	}
	if len(pts) == 0 {
		return chart{}, false
	}
	slices.SortStableFunc(pts, func(a, b pt) int { return int(a.x - b.x) })
	au, goal := &line{Name: "AU"}, &line{Name: fmt.Sprintf("target %.0f%%", 100*target)}
	labels := make([]string, len(pts))
	for i, p := range pts {
		au.add(0, point{p.x, p.au})
		labels[i] = p.label
	}
	goal.add(0, point{pts[0].x, 100 * target})
	goal.add(0, point{pts[len(pts)-1].x, 100 * target})
	return chart{title: "Accelerator utilisation against accelerators", x: "accelerators", y: "AU, %",
		lines: []*line{au, goal}, points: true, labels: labels}, true
}
