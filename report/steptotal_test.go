package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/objbench/objbench/result"
)

func histOf(t *testing.T, values ...int64) string {
	t.Helper()
	h := result.NewHistogram()
	for _, v := range values {
		if err := h.RecordValue(v); err != nil {
			t.Fatal(err)
		}
	}
	return result.EncodeHistogram(h)
}

// TestStepTotalSumsStreamsAndMergesLatency: the total row adds counts,
// bytes and rates of every stream and op, and takes its latencies from
// the merged histograms.
func TestStepTotalSumsStreamsAndMergesLatency(t *testing.T) {
	st := &result.Step{Stage: "main", Kind: result.KindMain, Streams: []result.Stream{
		{Name: "w1", Concurrency: 4, Totals: []result.OpTotal{
			{Op: "GET", Ops: 100, OK: 100, Bytes: 1000, OpsPerSec: 50, BytesPerSec: 500, LatencyHist: histOf(t, 1000, 1000, 1000, 1000)},
			{Op: "PUT", Ops: 10, OK: 8, Errors: map[string]int64{"http_503": 2}, Bytes: 80, OpsPerSec: 4, BytesPerSec: 40, LatencyHist: histOf(t, 9000)}}},
		{Name: "w2", Concurrency: 2, Totals: []result.OpTotal{
			{Op: "GET", Ops: 40, OK: 40, Bytes: 400, OpsPerSec: 20, BytesPerSec: 200, LatencyHist: histOf(t, 3000, 3000, 3000)}}},
	}}
	tot, conc, ok := stepTotal(st)
	if !ok || conc != 6 || tot.Ops != 150 || tot.OK != 148 || tot.Bytes != 1480 || tot.OpsPerSec != 74 || tot.BytesPerSec != 740 || Failures(tot) != 2 {
		t.Errorf("total %+v, conc %d", tot, conc)
	}
	// 8 values: 4 x 1 ms, 3 x 3 ms, 1 x 9 ms
	if p := tot.Latency; p.Count != 8 || p.Max < 8990 || p.Max > 9010 || p.P50 < 990 || p.P50 > 1010 || p.P75 < 2990 || p.P75 > 3010 {
		t.Errorf("merged latency %+v", p)
	}
	var out bytes.Buffer
	if err := WriteRates(&out, &result.Run{Steps: []result.Step{*st}}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if last := strings.Fields(lines[len(lines)-1]); len(lines) != 5 || last[1] != "*" || last[2] != "TOTAL" || last[3] != "6" || last[4] != "74.0" {
		t.Errorf("table:\n%s", out.String())
	}
	if _, _, ok := stepTotal(&result.Step{Streams: st.Streams[1:]}); ok {
		t.Error("a step of one row got a total")
	}
}
