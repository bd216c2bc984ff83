package studies

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/objbench/objbench/report"
	"github.com/objbench/objbench/result"
)

// Mailbench is seed 003's table, s3-mailbench's worker sweep: one row per
// worker count, messages per second and p99 of each op the runs measured
// at it (GET and STAT of the uploaded corpus by listing, DELETE of one
// prepared in the run's own namespace).
func Mailbench(runs []*result.Run) (Table, error) {
	type cell struct{ rate, p99 string }
	byConc := map[int]map[string]cell{}
	var ops []string
	short := false
	for _, r := range runs {
		for i := range r.Steps {
			st := &r.Steps[i]
			if st.Kind != result.KindMain {
				continue
			}
			for _, s := range st.Streams {
				for _, op := range s.Totals {
					if byConc[s.Concurrency] == nil {
						byConc[s.Concurrency] = map[string]cell{}
					}
					rate := strconv.FormatFloat(op.OpsPerSec, 'f', 0, 64)
					if report.TooShortToRate(op) {
						rate, short = "too short", true
					}
					byConc[s.Concurrency][op.Op] = cell{rate, ms(op.Latency.P99)}
					if !slices.Contains(ops, op.Op) {
						ops = append(ops, op.Op)
					}
				}
			}
		}
	}
	if len(byConc) == 0 {
		return Table{}, fmt.Errorf("no main step in these result files")
	}
	t := Table{Title: "seed 003: s3-mailbench worker sweep on a real mail corpus", Columns: []string{"WORKERS"},
		Notes: []string{"msgs/s: messages (objects) per second over each step's window; p99 in ms, as objbench's own tables state them"}}
	for _, op := range ops {
		t.Columns = append(t.Columns, op+" msgs/s", op+" p99")
	}
	concs := make([]int, 0, len(byConc))
	for c := range byConc {
		concs = append(concs, c)
	}
	slices.Sort(concs)
	for _, c := range concs {
		row := []string{strconv.Itoa(c)}
		for _, op := range ops {
			x, ok := byConc[c][op]
			if !ok {
				x = cell{"-", "-"}
			}
			row = append(row, x.rate, x.p99)
		}
		t.Rows = append(t.Rows, row)
	}
	if short {
		t.Notes = append(t.Notes, report.TooShortNote)
	}
	return t, nil
}
