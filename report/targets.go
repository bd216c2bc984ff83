package report

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/objbench/objbench/result"
)

// WriteTargets prints the runs of one workload on several targets side by
// side, the way storage systems are compared for a purchase: for each main
// step and op, the ops and bytes, the wall time the step took (a final
// sync included), and the same window rates as each target's own table
// (with --fsync at-end, the window ends when the sync returns), with
// latency percentiles.
func WriteTargets(w io.Writer, runs []*result.Run) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STEP\tOP\tSIZE\tTARGET\tCONC\tOPS\tBYTES\tTIME (s)\tWINDOW (s)\tKB/s\tOPS/S\tP50\tP99\tERR")
	type key struct {
		step string
		op   string
	}
	var order []key
	byKey := map[key][]string{}
	short := false
	for _, r := range runs {
		steps := map[string]int{} // a sweep's stage has several steps: number them
		for _, st := range r.Steps {
			steps[st.Stage]++
		}
		for i := range r.Steps {
			st := &r.Steps[i]
			if st.Kind != result.KindMain {
				continue
			}
			secs := st.Elapsed.Seconds()
			for _, str := range st.Streams {
				for _, t := range str.Totals {
					kbs, ops := rate(t.BytesPerSec/1000), rate(t.OpsPerSec)
					if TooShortToRate(t) {
						kbs, ops, short = "too short", "to rate", true
					}
					k := key{stageName(st), t.Op}
					if steps[st.Stage] > 1 {
						k.step += " #" + strconv.Itoa(st.Step+1)
					}
					if _, ok := byKey[k]; !ok {
						order = append(order, k)
					}
					byKey[k] = append(byKey[k], fmt.Sprintf("%s\t%s\t%d\t%d\t%s\t%.3f\t%.3f\t%s\t%s\t%s\t%s\t%d",
						decimalSize(t), r.Target.Label(), str.Concurrency, t.Ops, Bytes(float64(t.Bytes)), secs, str.Window.Duration(),
						kbs, ops, msi(t.Latency.P50), msi(t.Latency.P99), Failures(t)))
				}
			}
		}
	}
	for _, k := range order {
		for _, line := range byKey[k] {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", k.step, k.op, line)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if short {
		fmt.Fprintln(w, TooShortNote)
	}
	_, err := fmt.Fprintln(w, "SIZE is the mean object (KB, MB: powers of 1000); TIME is each step's wall time; KB/s (1 KB = 1000 B) and OPS/S are over its WINDOW, as in each target's table "+
		"(ramp-up and ramp-down left out; with --fsync at-end the window ends when the final sync returns); latencies in ms")
	return err
}

// decimalSize is an op's mean object size in powers of 1000, as storage
// studies state them ("4 KB", "10 MB"); "-" for ops that move no bytes.
func decimalSize(t result.OpTotal) string {
	if t.OK == 0 || t.Bytes == 0 {
		return "-"
	}
	v := float64(t.Bytes) / float64(t.OK)
	for _, u := range []string{"B", "KB", "MB", "GB"} {
		if v < 1000 || u == "GB" {
			return strconv.FormatFloat(v, 'g', 3, 64) + " " + u
		}
		v /= 1000
	}
	return "-"
}
