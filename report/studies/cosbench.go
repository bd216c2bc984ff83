package studies

import (
	"fmt"
	"strconv"

	"github.com/objbench/objbench/report"
	"github.com/objbench/objbench/result"
)

// COSBench is seed 004's table in COSBench's own report columns: for each
// stage and op, Op-Count, Byte-Count, Avg-ResTime (the whole op, ms),
// Avg-ProcTime (to the first byte of the answer, ms: what is left of the
// response time once the transfer is taken out), Throughput (op/s) and
// Bandwidth (MB/S, 1 MB = 1000^2 B) over the step's window, and
// Succ-Ratio. A merged run of several workers (drivers) reads like one.
func COSBench(r *result.Run) (Table, error) {
	t := Table{Title: "seed 004: COSBench report", Columns: []string{"Stage", "Op-Type", "Op-Count", "Byte-Count", "Avg-ResTime",
		"Avg-ProcTime", "Throughput", "Bandwidth", "Succ-Ratio"}}
	if r.Workers != nil {
		t.Title += fmt.Sprintf(" (%d drivers merged)", len(r.Workers.Parts))
	}
	short := false
	for i := range r.Steps {
		st := &r.Steps[i]
		for _, s := range st.Streams {
			for _, op := range s.Totals {
				proc := "-"
				if op.TTFB != nil && op.TTFB.Count > 0 {
					proc = strconv.FormatFloat(op.TTFB.Avg/1000, 'f', 2, 64) + " ms"
				}
				succ := "-"
				if op.Ops > 0 {
					succ = strconv.FormatFloat(100*float64(op.OK)/float64(op.Ops), 'f', 2, 64) + "%"
				}
				tp, bw := strconv.FormatFloat(op.OpsPerSec, 'f', 2, 64)+" op/s", strconv.FormatFloat(op.BytesPerSec/1e6, 'f', 2, 64)+" MB/S"
				if report.TooShortToRate(op) {
					tp, bw, short = "too short", "to rate", true
				}
				t.Rows = append(t.Rows, []string{st.Stage + stream(st, s), cosOp(op.Op), strconv.FormatInt(op.Ops, 10),
					strconv.FormatInt(op.Bytes, 10), strconv.FormatFloat(op.Latency.Avg/1000, 'f', 2, 64) + " ms", proc, tp, bw, succ})
			}
		}
	}
	if len(t.Rows) == 0 {
		return t, fmt.Errorf("no ops in this result file")
	}
	t.Notes = []string{"Avg-ResTime: the whole op; Avg-ProcTime: to the first byte of the answer; Throughput and Bandwidth over each step's window (1 MB = 1000^2 B)"}
	if short {
		t.Notes = append(t.Notes, report.TooShortNote)
	}
	return t, nil
}

func stream(st *result.Step, s result.Stream) string {
	if len(st.Streams) == 1 {
		return ""
	}
	return "/" + s.Name
}

// cosOp names an op as COSBench's report does.
func cosOp(op string) string {
	switch op {
	case "GET":
		return "read"
	case "PUT":
		return "write"
	case "DELETE":
		return "delete"
	case "LIST":
		return "list"
	case "STAT":
		return "head"
	}
	return op
}
