package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/objbench/objbench/merge"
	"github.com/objbench/objbench/result"
)

// WriteComparePhases prints, for each op that has phases in the base run,
// the p50 and p99 of each phase in every run and the change against the
// base: which part of a request moved (a TLS terminator's handshake, a
// load balancer's wait). Runs without phases (file targets, older
// results) print nothing.
func WriteComparePhases(w io.Writer, labels []string, runs []*result.Run) error {
	all := make([][]PhaseRow, len(runs))
	for i, r := range runs {
		folded, err := foldPhases(r)
		if err != nil {
			return fmt.Errorf("%s: %w", labels[i], err)
		}
		rows, err := PhaseRows(folded)
		if err != nil {
			return fmt.Errorf("%s: %w", labels[i], err)
		}
		all[i] = rows
	}
	if len(all) == 0 || len(all[0]) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nWhere the time goes, per request: p50 / p99 in ms, changes against "+labels[0])
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "STAGE\tOP\tCONC\tRUN\tNEW-CONN"
	for _, n := range result.PhaseNames {
		head += "\t" + strings.ToUpper(n)
	}
	fmt.Fprintln(tw, head)
	for _, base := range all[0] {
		for i := range runs {
			x, ok := findPhaseRow(all[i], base)
			stage, op := base.Stage, base.Op
			if i > 0 {
				stage, op = "", ""
			}
			if !ok {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\tmissing\n", stage, op, base.Concurrency, labels[i])
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%d", stage, op, x.Concurrency, labels[i], x.NewConns)
			for ph := range result.NumPhases {
				cell := phaseCell(x.P50[ph], x.P99[ph])
				if i > 0 && cell != "-" {
					cell = ms0(x.P50[ph]) + pctCell(base.P50[ph], x.P50[ph]) + " / " + ms0(x.P99[ph]) + pctCell(base.P99[ph], x.P99[ph])
				}
				fmt.Fprint(tw, "\t"+cell)
			}
			fmt.Fprintln(tw)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "phase changes are not tested for significance: read them beside the table above")
	return nil
}

func findPhaseRow(rows []PhaseRow, want PhaseRow) (PhaseRow, bool) {
	for _, r := range rows {
		if r.Stage == want.Stage && r.Stream == want.Stream && r.Op == want.Op && r.Concurrency == want.Concurrency {
			return r, true
		}
	}
	return PhaseRow{}, false
}

func pctCell(base, v int64) string {
	if base == 0 || base == v {
		return ""
	}
	return " (" + formatPct(100*float64(v-base)/float64(base)) + ")"
}

// foldPhases is r with each main step's repetitions folded into its first
// one's phases (histograms add), as compare folds their rates: the rows
// of a run with --repeat N then match those of a run without.
func foldPhases(r *result.Run) (*result.Run, error) {
	out := *r
	out.Steps = nil
	first := map[string]int{} // step name -> index in out.Steps
	for _, st := range r.Steps {
		if st.Repetition == 0 {
			out.Steps = append(out.Steps, st)
			continue
		}
		key := stepName(&st) + "\x00" + strconv.Itoa(st.Step)
		i, ok := first[key]
		if !ok {
			st.Repetition = 0
			st.Streams = append([]result.Stream(nil), st.Streams...)
			first[key] = len(out.Steps)
			out.Steps = append(out.Steps, st)
			continue
		}
		into := &out.Steps[i]
		for _, s := range st.Streams {
			for j := range into.Streams {
				if into.Streams[j].Name != s.Name {
					continue
				}
				merged, err := merge.Phases(into.Streams[j].Phases, s.Phases)
				if err != nil {
					return nil, err
				}
				into.Streams[j].Phases = merged
			}
		}
	}
	return &out, nil
}
