package report

import (
	"encoding/csv"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/objbench/objbench/result"
)

var csvHeader = []string{"stage", "step", "stream", "op", "concurrency", "ops", "ok", "errors", "error_classes",
	"bytes", "window_s", "ops_per_s", "mib_per_s", "avg_ms", "p25_ms", "p50_ms", "p75_ms", "p90_ms", "p99_ms",
	"p99_9_ms", "max_ms", "ttfb_p50_ms", "ttfb_p99_ms", "step_cpu_s", "stopped_by",
	"response_p50_ms", "response_p99_ms", "dropped"}

// WriteCSV writes one row per op x stream x step.
func WriteCSV(w io.Writer, r *result.Run) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	m := func(us int64) string { return f(float64(us) / 1000) }
	for _, x := range rows(r) {
		t, p := x.t, x.t.Latency
		var classes []string
		for c, n := range t.Errors {
			classes = append(classes, c+"="+strconv.FormatInt(n, 10))
		}
		sort.Strings(classes)
		ttfb50, ttfb99 := "", ""
		if t.TTFB != nil {
			ttfb50, ttfb99 = m(t.TTFB.P50), m(t.TTFB.P99)
		}
		resp50, resp99 := "", ""
		if t.Response != nil {
			resp50, resp99 = m(t.Response.P50), m(t.Response.P99)
		}
		rec := []string{x.step.Stage, strconv.Itoa(x.step.Step), x.stream.Name, t.Op, strconv.Itoa(x.stream.Concurrency),
			strconv.FormatInt(t.Ops, 10), strconv.FormatInt(t.OK, 10), strconv.FormatInt(t.Ops-t.OK, 10),
			strings.Join(classes, " "), strconv.FormatInt(t.Bytes, 10), f(x.stream.Window.Duration()),
			f(t.OpsPerSec), f(t.BytesPerSec / (1 << 20)), f(p.Avg / 1000), m(p.P25), m(p.P50), m(p.P75), m(p.P90),
			m(p.P99), m(p.P999), m(p.Max), ttfb50, ttfb99, f((x.step.CPUUser + x.step.CPUSys).Seconds()), x.stream.StoppedBy,
			resp50, resp99, strconv.FormatInt(t.Dropped, 10)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
