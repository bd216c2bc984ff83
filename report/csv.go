package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/objbench/objbench/result"
)

var csvHeader = []string{"stage", "step", "stream", "op", "concurrency", "ops", "ok", "errors", "error_classes",
	"bytes", "window_s", "ops_per_s", "mib_per_s", "avg_ms", "p25_ms", "p50_ms", "p75_ms", "p90_ms", "p99_ms",
	"p99_9_ms", "max_ms", "ttfb_p50_ms", "ttfb_p99_ms", "step_cpu_s", "stopped_by",
	"response_p50_ms", "response_p99_ms", "dropped", "requests_traced", "new_conns", "tls_resumed"}

// csvColumns is the header: csvHeader, then the p50 and p99 of each phase
// of a request (conn_wait_p50_ms, ..., receive_p99_ms), empty in a row
// whose requests were not traced (a file target).
func csvColumns() []string {
	cols := slices.Clone(csvHeader)
	for _, name := range result.PhaseNames {
		n := strings.ReplaceAll(name, "-", "_")
		cols = append(cols, n+"_p50_ms", n+"_p99_ms")
	}
	return cols
}

// WriteCSV writes one row per op x stream x step: its counts, rates and
// latency percentiles, then where its requests spent their time.
func WriteCSV(w io.Writer, r *result.Run) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvColumns()); err != nil {
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
		rec, err := appendPhases(rec, x.stream, t.Op, m)
		if err != nil {
			return err
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// appendPhases adds the row's traced requests, connections and phase
// percentiles (empty cells when its op has no phases in the stream).
func appendPhases(rec []string, s *result.Stream, op string, ms func(int64) string) ([]string, error) {
	i := slices.IndexFunc(s.Phases, func(p result.OpPhases) bool { return p.Op == op })
	if i < 0 {
		return append(rec, make([]string, 3+2*result.NumPhases)...), nil
	}
	p := &s.Phases[i]
	rec = append(rec, strconv.FormatInt(p.Requests, 10), strconv.FormatInt(p.NewConns, 10), strconv.FormatInt(p.Resumed, 10))
	for ph := range result.NumPhases {
		h, err := p.Histogram(ph)
		if err != nil {
			return nil, fmt.Errorf("%s %s phases: %w", s.Name, op, err)
		}
		if h == nil {
			rec = append(rec, "", "")
			continue
		}
		rec = append(rec, ms(quantile(h, 50)), ms(quantile(h, 99)))
	}
	return rec, nil
}
