package htmlreport_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/report/htmlreport"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/sysmon"
)

var t0 = time.Date(2025, 3, 4, 10, 20, 30, 0, time.UTC)

func histogram(t *testing.T, us ...int64) string { return testenv.Histogram(t, us...) }

// sweepResult is a prepare step and a two-step concurrency sweep of GETs
// and PUTs, with the machine sampled each second.
func sweepResult(t *testing.T) *result.Run {
	t.Helper()
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	sec := func(s, ops, base int64) result.Second {
		lat := make([]int64, 0, 100)
		for i := range int64(100) {
			lat = append(lat, base+i*i*base/400)
		}
		return result.Second{T: s, Ops: []result.OpSecond{
			{Op: "GET", Ops: ops, Bytes: ops << 16, Latency: histogram(t, lat...)},
			{Op: "PUT", Ops: ops / 4, Bytes: ops << 14, Latency: histogram(t, lat[50:]...),
				Errors: map[string]int64{"timeout": s}},
		}}
	}
	main := func(start float64, conc int, ops, base int64) result.Step {
		return result.Step{Stage: "main", Kind: result.KindMain, Start: at(start), Elapsed: 3 * time.Second,
			Streams: []result.Stream{{Name: "mixed", Concurrency: conc, Window: result.Window{Start: 0.01, End: 2.99},
				Seconds: []result.Second{sec(0, ops, base), sec(1, ops+ops/10, base), sec(2, ops-ops/10, base)}}}}
	}
	steps := []result.Step{
		{Stage: "prepare", Kind: result.KindPrepare, Start: at(0), Elapsed: 800 * time.Millisecond,
			Streams: []result.Stream{{Name: "prepare", Concurrency: 8, Window: result.Window{Start: 0, End: 0.8},
				Seconds: []result.Second{{T: 0, Ops: []result.OpSecond{{Op: "PUT", Ops: 200, Bytes: 200 << 16, Latency: histogram(t, 900, 1500)}}}}}}},
		main(1, 1, 2000, 400),
		main(4, 8, 9000, 700),
	}
	var samples []result.Sample
	for i := range 7 {
		samples = append(samples, result.Sample{Start: at(float64(i)), Dur: 1,
			CPU:  result.CPU{User: 30 + float64(i*8), Sys: 10, Idle: 55 - float64(i*8), IOWait: 5},
			Disk: result.DiskIO{WriteBytes: float64(i) * (8 << 20)}, Net: result.NetIO{RecvBytes: float64(i) * (40 << 20), SendBytes: 30 << 20}})
	}
	m := sysmonMachine()
	r := &result.Run{RunInfo: result.RunInfo{Schema: result.Version, Tool: result.Tool{Name: "objbench", Version: "v0.9.0"},
		RunID: "20250304-102030-abc123", Started: t0, Finished: at(7.5)}, Machine: m,
		Target: result.Target{Kind: "s3", Embedded: true, Bucket: "objbench"}, Steps: steps}
	r.System = sysmon.Judge(result.Timeline{Interval: 1, Samples: samples}, steps, m, sysmon.Target{Kind: "s3", Embedded: true})
	for i := range r.Steps { // totals as a reader sees them: recomputed from the seconds
		for j := range r.Steps[i].Streams {
			s := &r.Steps[i].Streams[j]
			totals, err := result.Summarize(s.Seconds, s.Window)
			if err != nil {
				t.Fatal(err)
			}
			s.Totals = totals
		}
	}
	return r
}

func sysmonMachine() result.Machine {
	return result.Machine{Hostname: "bench1", OS: "linux", Arch: "amd64", Kernel: "6.1.0", CPUs: 2, CPUModel: "Test CPU",
		MemoryBytes: 8 << 30, GoVersion: "go1.26.8"}
}

func TestPageGolden(t *testing.T) {
	var b bytes.Buffer
	if err := htmlreport.Write(&b, sweepResult(t)); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.html.golden", b.Bytes())
}

func TestPageIsSelfContained(t *testing.T) {
	var b bytes.Buffer
	if err := htmlreport.Write(&b, sweepResult(t)); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"<svg", "Throughput per op", "Operations per op", "CPU (whole machine)", "Disk", "Network",
		"Latency per second", "HDR percentile plot", "Throughput vs latency", "bench1", "v0.9.0", "main conc 8: "} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if n := strings.Count(page, "<svg"); n != 3 { // the time charts in one, the distribution, the sweep
		t.Errorf("%d SVG elements, want 3", n)
	}
	fetchesNothing(t, page)
}

func fetchesNothing(t *testing.T, page string) {
	t.Helper()
	for _, fetch := range []string{"<script", "<link", "src=", "url(", "@import", `href="http`} {
		if strings.Contains(page, fetch) {
			t.Errorf("page contains %q: it must fetch nothing", fetch)
		}
	}
}

func TestPageWithoutTimelineOrSweep(t *testing.T) {
	r := sweepResult(t)
	r.System, r.Steps = nil, r.Steps[:2]
	var b bytes.Buffer
	if err := htmlreport.Write(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"no system timeline", "no throughput-latency curve", "no verdict"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("page does not say %q", want)
		}
	}
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testenv.Golden(t, filepath.Join("testdata", name), got)
}
