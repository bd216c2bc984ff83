package htmlreport_test

import (
	"bytes"
	"encoding/json"
	"html"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/report"
	"github.com/objbench/objbench/report/htmlreport"
	"github.com/objbench/objbench/result"
)

// compareRun is a prepare step and a main step of secs seconds of GETs
// (64 KiB) and STATs at concurrency 8, speed times as many ops as the
// base, each speed times as fast.
func compareRun(t *testing.T, id, version string, secs int64, speed float64) *result.Run {
	t.Helper()
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	lat := func(base int64) []int64 {
		out := make([]int64, 0, 200)
		for i := range int64(200) {
			out = append(out, base+i*i*base/8000)
		}
		return out
	}
	var seconds []result.Second
	for s := range secs {
		ops := int64(float64(2000+(s%3)*60) * speed)
		base := int64(800 / speed)
		seconds = append(seconds, result.Second{T: s, Ops: []result.OpSecond{
			{Op: "GET", Ops: ops, Bytes: ops << 16, Latency: histogram(t, lat(base)...)},
			{Op: "STAT", Ops: ops / 2, Latency: histogram(t, lat(base/3)...)},
		}})
	}
	steps := []result.Step{
		{Stage: "prepare", Kind: result.KindPrepare, Start: at(0), Elapsed: 800 * time.Millisecond,
			Streams: []result.Stream{{Name: "prepare", Concurrency: 8, Window: result.Window{Start: 0, End: 0.8},
				Seconds: []result.Second{{T: 0, Ops: []result.OpSecond{{Op: "PUT", Ops: 200, Bytes: 200 << 16, Latency: histogram(t, 900, 1500)}}}}}}},
		{Stage: "main", Kind: result.KindMain, Start: at(1), Elapsed: time.Duration(secs) * time.Second,
			Streams: []result.Stream{{Name: "main", Concurrency: 8, Window: result.Window{Start: 0.02, End: float64(secs) - 0.02},
				Seconds: seconds}}},
	}
	for i := range steps { // totals as a reader sees them: recomputed from the seconds
		s := &steps[i].Streams[0]
		totals, err := result.Summarize(s.Seconds, s.Window)
		if err != nil {
			t.Fatal(err)
		}
		s.Totals = totals
	}
	return &result.Run{RunInfo: result.RunInfo{Schema: result.Version, Tool: result.Tool{Name: "objbench", Version: version},
		RunID: id, Started: t0, Finished: at(float64(secs) + 1.5)},
		Machine: sysmonMachine(), Target: result.Target{Kind: "s3", Endpoint: "http://10.0.0.5:9000", Bucket: "bench"},
		Spec: json.RawMessage(`{"name":"` + id + `"}`), Steps: steps}
}

// comparison is a base side of four runs, a side of four runs 30% faster,
// and a side of one short run, too few to test: every mark the table
// has. The runs returned are each side's first, which the page describes.
func comparison(t *testing.T) (*report.Comparison, []*result.Run) {
	side := func(id, version string, secs int64, speed float64, n int) []*result.Run {
		var out []*result.Run
		for range n {
			out = append(out, compareRun(t, id, version, secs, speed))
		}
		return out
	}
	sides := [][]*result.Run{side("run-base", "v0.9.0", 8, 1, 4), side("run-fast", "v0.10.0", 8, 1.3, 4), side("run-short", "v0.10.0", 3, 1.02, 1)}
	c := report.CompareSides(sides...)
	c.Labels = []string{"base.json", "fast.json", "short.json"}
	return c, []*result.Run{sides[0][0], sides[1][0], sides[2][0]}
}

func TestComparePageGolden(t *testing.T) {
	c, runs := comparison(t)
	var b bytes.Buffer
	if err := htmlreport.WriteCompare(&b, c, runs); err != nil {
		t.Fatal(err)
	}
	golden(t, "compare.html.golden", b.Bytes())
}

func TestComparePageShowsTheComparison(t *testing.T) {
	c, runs := comparison(t)
	var b bytes.Buffer
	if err := htmlreport.WriteCompare(&b, c, runs); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	var table bytes.Buffer
	if err := report.WriteCompareTable(&table, c); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Throughput per op", "Operations per second per op", // bars side by side
		"GET: latency distribution", "STAT: latency distribution", // overlaid, per op
		"GET: throughput (MiB/s) and operations per second", "STAT: operations per second",
		"base.json", "fast.json", "short.json", "v0.9.0", "v0.10.0", "http://10.0.0.5:9000", "run-fast",
		`&#34;name&#34;: &#34;run-short&#34;`, // each run's spec
		"+30.0% *", "?",                       // the change and its mark, on the bars
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// The table as an HTML table: every cell of the text output's is one.
	for _, l := range report.CompareLines(c) {
		for _, cell := range l.Cells {
			want := "<td>" + html.EscapeString(cell.Value)
			if cell.Change != "" {
				want += `<span class="chg`
			}
			if !strings.Contains(page, want) && !strings.Contains(page, `<td class="name">`+html.EscapeString(cell.Value)) {
				t.Errorf("page lacks the cell %q", cell)
			}
		}
	}
	_, notes, _ := strings.Cut(table.String(), "latencies in ms")
	for _, n := range strings.Split(strings.TrimSpace(notes), "\n") {
		if !strings.Contains(html.UnescapeString(page), n) {
			t.Errorf("page lacks the table's note %q", n)
		}
	}
	if strings.Contains(page, "STAT: throughput") {
		t.Error("STAT moves no bytes: it has no MiB/s chart")
	}
	// 2 bar charts, 2 distributions and 2 time stacks (GET, STAT): PUT
	// ran in no main step, and a note says so.
	if n := strings.Count(page, "<svg"); n != 6 {
		t.Errorf("%d SVG elements, want 6", n)
	}
	if !strings.Contains(page, "PUT ran in no main step") || !strings.Contains(page, "prepare PUT") {
		t.Error("page does not say why PUT has no per-op charts, or leaves it out of the bars")
	}
	fetchesNothing(t, page)
}

func TestComparePageMissingRowAndLabels(t *testing.T) {
	_, runs := comparison(t)
	runs[2].Steps[1].Stage = "renamed"
	c := report.Compare(runs[0], runs[1:]...)
	var b bytes.Buffer
	if err := htmlreport.WriteCompare(&b, c, runs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), ">missing<") {
		t.Error("a run without a row does not say it is missing on the bars")
	}
	if err := htmlreport.WriteCompare(&b, c, runs[:2]); err == nil {
		t.Error("two result files for three labels: no error")
	}
}
