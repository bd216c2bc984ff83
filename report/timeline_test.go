package report

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/sysmon"
)

var goldenT0 = time.Date(2025, 3, 4, 10, 20, 30, 0, time.UTC)

// histogram encodes latencies (µs) the way the result file stores them.
func histogram(t *testing.T, us ...int64) string { return testenv.Histogram(t, us...) }

// timelineResult is a small run: a prepare step and a three-second GET
// step with a sample for each second, one of them alarming.
func timelineResult(t *testing.T) *result.Run {
	t.Helper()
	at := func(s float64) time.Time { return goldenT0.Add(time.Duration(s * float64(time.Second))) }
	get := func(sec int64, ops int64, lat ...int64) result.Second {
		return result.Second{T: sec, Ops: []result.OpSecond{{Op: "GET", Ops: ops, Bytes: ops << 16, Latency: histogram(t, lat...)}}}
	}
	steps := []result.Step{
		{Stage: "prepare", Kind: result.KindPrepare, Start: at(0), Elapsed: 400 * time.Millisecond,
			Streams: []result.Stream{{Name: "prepare", Concurrency: 8}}},
		{Stage: "main", Kind: result.KindMain, Start: at(0.5), Elapsed: 3 * time.Second,
			Streams: []result.Stream{{Name: "get", Concurrency: 8, Window: result.Window{Start: 0.01, End: 2.99},
				Seconds: []result.Second{get(0, 5200, 900, 1200, 4100), get(1, 6100, 800, 950), get(2, 5900, 850, 3200)}}}},
	}
	proc := func(cores float64) *result.Process {
		return &result.Process{User: cores * 0.7, Sys: cores * 0.3, MaxProcs: 2, Threads: 9, SchedP99: 0.003}
	}
	busy := result.CPU{User: 61, Sys: 27, Idle: 4, Steal: 1, SoftIRQ: 7}
	samples := []result.Sample{
		{Start: at(0), Dur: 0.5, CPU: result.CPU{User: 20, Sys: 10, Idle: 70}, Disk: result.DiskIO{WriteBytes: 12 << 20},
			Net: result.NetIO{RecvBytes: 900, SendBytes: 52 << 20}, Interrupts: 1500, CtxSwitches: 9000, Proc: proc(0.6)},
		{Start: at(0.5), Dur: 1, CPU: busy, Net: result.NetIO{RecvBytes: 330 << 20, SendBytes: 2 << 20},
			Interrupts: 21000, CtxSwitches: 145000, Proc: proc(1.8)},
		{Start: at(1.5), Dur: 1, CPU: result.CPU{User: 55, Sys: 20, Idle: 1, IOWait: 24}, Disk: result.DiskIO{ReadBytes: 3 << 30},
			PageIn: 48 << 10, PageOut: 1.5 * (1 << 20),
			Net: result.NetIO{RecvBytes: 390 << 20, SendBytes: 2 << 20}, Interrupts: 23000, CtxSwitches: 150000, Proc: proc(1.75)},
		{Start: at(2.5), Dur: 1, CPU: busy, Net: result.NetIO{RecvBytes: 380 << 20, SendBytes: 2 << 20},
			Interrupts: 22000, CtxSwitches: 151000, Proc: proc(1.84)},
	}
	tl := result.Timeline{Interval: 1, Samples: samples, Devices: []string{"vda"}, Interfaces: []string{"eth0"},
		Missing: []string{"steal"}, Notes: []string{"this kernel does not report CPU steal"}}
	m := result.Machine{CPUs: 2}
	return &result.Run{RunInfo: result.RunInfo{Schema: result.Version}, Steps: steps, Machine: m,
		System: sysmon.Judge(tl, steps, m, sysmon.Target{Kind: "s3"})}
}

func TestTimelineGolden(t *testing.T) {
	for _, c := range []struct {
		name  string
		style TimelineStyle
	}{
		{"timeline.golden", TimelineStyle{}},
		{"timeline_color.golden", TimelineStyle{Color: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteTimeline(&b, timelineResult(t), c.style); err != nil {
				t.Fatal(err)
			}
			golden(t, c.name, b.Bytes())
		})
	}
}

func TestTimelineCSVGolden(t *testing.T) {
	r := timelineResult(t)
	var b bytes.Buffer
	c := NewTimelineCSV(&b, r.System.Missing)
	if err := c.Header(); err != nil {
		t.Fatal(err)
	}
	for _, s := range r.System.Samples {
		if err := c.Row(s); err != nil {
			t.Fatal(err)
		}
	}
	golden(t, "timeline.csv.golden", b.Bytes())
}

func TestSystemFilesSamplesAndJudgesMainSteps(t *testing.T) {
	r := timelineResult(t)
	var steps []int
	for _, s := range r.System.Samples {
		steps = append(steps, s.Step)
	}
	if got := fmt.Sprint(steps); got != "[0 1 1 1]" {
		t.Errorf("samples filed under steps %s, want [0 1 1 1]", got)
	}
	if len(r.System.Verdicts) != 1 || r.System.Verdicts[0].Step != 1 {
		t.Fatalf("verdicts %+v, want one, on step 1 (main)", r.System.Verdicts)
	}
	if f := r.System.Verdicts[0].Findings; len(f) == 0 || f[0].Kind != sysmon.KindClientBound {
		t.Errorf("findings %+v, want client-bound first", f)
	}
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testenv.Golden(t, filepath.Join("testdata", name), got)
}
