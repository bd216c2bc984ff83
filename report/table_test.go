package report

import (
	"bytes"
	"testing"
	"time"

	"github.com/objbench/objbench/result"
)

// tableResult is a run with every kind of row the tables show: a prepare
// step, a main step with two streams (GETs with TTFB, PUTs with errors), an
// open-loop step with response times and dropped slots, and a cleanup step
// that only left a note. Totals are recomputed as Decode does.
func tableResult(t *testing.T) *result.Run {
	t.Helper()
	at := func(s float64) time.Time { return goldenT0.Add(time.Duration(s * float64(time.Second))) }
	lat := func(base int64) []int64 {
		out := make([]int64, 0, 50)
		for i := range int64(50) {
			out = append(out, base+i*i*base/100)
		}
		return out
	}
	get := func(sec, ops, base int64) result.OpSecond {
		return result.OpSecond{Op: "GET", Ops: ops, Bytes: ops << 20, Latency: histogram(t, lat(base)...),
			TTFB: histogram(t, lat(base/4)...)}
	}
	put := func(sec, ops, base int64) result.OpSecond {
		o := result.OpSecond{Op: "PUT", Ops: ops, Bytes: (ops - sec) << 18, Latency: histogram(t, lat(base)...)}
		if sec > 0 { // a failing second: sec 503s, sec/2 timeouts
			o.Errors = map[string]int64{"http_503": sec, "timeout": sec / 2}
		}
		return o
	}
	rated := func(sec, ops, dropped int64) result.OpSecond {
		o := get(sec, ops, 900)
		o.Response, o.Dropped = histogram(t, lat(1400)...), dropped
		return o
	}
	w := result.Window{Start: 0.05, End: 2.95}
	steps := []result.Step{
		{Stage: "prepare", Kind: result.KindPrepare, Start: at(0), Elapsed: 600 * time.Millisecond,
			CPUUser: 200 * time.Millisecond, CPUSys: 100 * time.Millisecond, ConnsDialed: 8, Requests: 120,
			Streams: []result.Stream{{Name: "prepare", Concurrency: 8, StoppedBy: "done", Window: result.Window{Start: 0.02, End: 0.6},
				Seconds: []result.Second{{T: 0, Ops: []result.OpSecond{put(0, 120, 2000)}}}}}},
		{Stage: "main", Kind: result.KindMain, Start: at(1), Elapsed: 3 * time.Second,
			CPUUser: 1900 * time.Millisecond, CPUSys: 700 * time.Millisecond, ConnsDialed: 12, Requests: 1520,
			Streams: []result.Stream{
				{Name: "readers", Concurrency: 4, StoppedBy: "duration", Window: w,
					Seconds: []result.Second{{T: 0, Ops: []result.OpSecond{get(0, 380, 700)}},
						{T: 1, Ops: []result.OpSecond{get(1, 410, 650)}}, {T: 2, Ops: []result.OpSecond{get(2, 395, 720)}}}},
				{Name: "writers", Concurrency: 2, StoppedBy: "duration", Window: w,
					Seconds: []result.Second{{T: 0, Ops: []result.OpSecond{put(0, 110, 1800)}},
						{T: 1, Ops: []result.OpSecond{put(1, 115, 1700)}}, {T: 2, Ops: []result.OpSecond{put(2, 108, 1900)}}}},
			}},
		{Stage: "main", Kind: result.KindMain, Step: 1, Sweep: "rate=500/s", Start: at(4.5), Elapsed: 3 * time.Second,
			CPUUser: 900 * time.Millisecond, CPUSys: 400 * time.Millisecond, ConnsDialed: 16, Requests: 1440,
			Streams: []result.Stream{{Name: "readers", Concurrency: 16, StoppedBy: "duration", Window: w,
				Seconds: []result.Second{{T: 0, Ops: []result.OpSecond{rated(0, 480, 20)}},
					{T: 1, Ops: []result.OpSecond{rated(1, 470, 30)}}, {T: 2, Ops: []result.OpSecond{rated(2, 490, 10)}}}}}},
		{Stage: "cleanup", Kind: result.KindCleanup, Start: at(8), Elapsed: 250 * time.Millisecond,
			Notes: []string{"bucket objbench kept: it held objects before the run"}},
	}
	for i := range steps {
		for j := range steps[i].Streams {
			s := &steps[i].Streams[j]
			totals, err := result.Summarize(s.Seconds, s.Window)
			if err != nil {
				t.Fatal(err)
			}
			s.Totals = totals
		}
	}
	return &result.Run{RunInfo: result.RunInfo{Schema: result.Version, Tool: result.Tool{Name: "objbench", Version: "v0.9.0"},
		RunID: "20250304-102030-tbl", Started: goldenT0, Finished: at(8.3)},
		Target: result.Target{Kind: "s3", Embedded: true, Bucket: "objbench", Namespace: "objbench-tbl/"}, Steps: steps}
}

// The exports `objbench report` prints or writes, byte for byte.
func TestReportExportsGolden(t *testing.T) {
	for _, c := range []struct {
		name  string
		write func(*bytes.Buffer, *result.Run) error
	}{
		{"report.golden", func(b *bytes.Buffer, r *result.Run) error { return WriteTable(b, r) }},
		{"report.csv.golden", func(b *bytes.Buffer, r *result.Run) error { return WriteCSV(b, r) }},
		{"report.json.golden", func(b *bytes.Buffer, r *result.Run) error { return WriteJSON(b, r) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := c.write(&b, tableResult(t)); err != nil {
				t.Fatal(err)
			}
			golden(t, c.name, b.Bytes())
		})
	}
}
