package sysmon

import (
	"fmt"
	"time"
)

// Thresholds of the verdict rules (documented in README.md, "Verdict").
// Averages are over the samples in a step's common window.
const (
	// ClientCPUShare: objbench's process used at least this percent of the
	// cores it may use: the client is the bottleneck.
	ClientCPUShare = 85.0
	// HostCPUBusy: the machine's CPUs were busy (not idle, not waiting for
	// I/O) at least this percent of the time.
	HostCPUBusy = 90.0
	// SchedLatencyHigh: the median per-second p99 of how long a runnable
	// goroutine waited for a CPU; at or above it the client delays its own
	// ops even when its CPU share looks moderate (GOMAXPROCS, cgroup quota).
	SchedLatencyHigh = 5 * time.Millisecond
	// IOWaitHigh and DiskUtilHigh: percent of CPU time waiting for I/O, and
	// of time the busiest disk had I/O in flight, that mark a disk limit.
	IOWaitHigh   = 20.0
	DiskUtilHigh = 90.0
	// NetNearCapacity: percent of an interface's link speed, in either
	// direction, that counts as near capacity.
	NetNearCapacity = 85.0
	// StealHigh: percent of CPU time the hypervisor gave to others.
	StealHigh = 10.0
	// SwapHigh: bytes per second swapped in and out.
	SwapHigh = 1 << 20
	// MinJudged: a window with fewer seconds of samples gets no verdict.
	MinJudged = 1.0
	// maxFindings bounds the verdict to what a reader takes in at a glance.
	maxFindings = 3
)

// Kinds of finding.
const (
	KindClientBound  = "client-bound"  // objbench (with an embedded server) is out of CPU
	KindCPUShared    = "cpu-shared"    // the machine is out of CPU and the target runs on it
	KindCPUContended = "cpu-contended" // the machine is out of CPU, mostly to other processes
	KindDiskBound    = "disk-bound"
	KindNetBound     = "network-bound"
	KindSteal        = "steal"
	KindSwapping     = "swapping"
	KindTargetBound  = "target-bound" // no resource of the client saturated
	KindTooShort     = "too-short"
)

// Target is what the verdict knows of what was measured.
type Target struct {
	Kind     string // "s3" or "fs"
	Embedded bool   // objbench's own S3 server, inside this process
	Loopback bool   // on this machine, reached over lo
	// LinkSpeed is every interface's capacity in bits/s (--link-speed);
	// 0 uses the speeds the machine reports.
	LinkSpeed float64
}

// Verdict says, in one to three findings, what limited the run during
// window w: the client's CPU, disk or network, or — none of them
// saturated — the target. It is a pure function of its inputs.
func Verdict(samples []Sample, w Span, m Machine, t Target) []Finding {
	ws := aggregate(samples, w)
	if ws.covered < MinJudged {
		return []Finding{{Kind: KindTooShort, Numbers: map[string]float64{"window_s": ws.covered},
			Text: fmt.Sprintf("too short to judge the bottleneck: %.1f s of samples in the window (a verdict needs %.0f s)",
				ws.covered, MinJudged)}}
	}
	j := judge{ws: ws, m: m, t: t, cores: cores(m, ws)}
	var out []Finding
	for _, rule := range []func() *Finding{j.cpu, j.disk, j.network} {
		if f := rule(); f != nil {
			out = append(out, *f)
		}
	}
	if len(out) == 0 {
		out = append(out, j.target())
	}
	for _, rule := range []func() *Finding{j.steal, j.swapping} {
		if f := rule(); f != nil {
			out = append(out, *f)
		}
	}
	if len(out) > maxFindings {
		out = out[:maxFindings]
	}
	for i := range out {
		out[i].Numbers["window_s"] = round(ws.covered, 2)
	}
	return out
}

// cores is how many CPUs objbench could use: the machine's, or fewer when
// GOMAXPROCS (following a cgroup quota) says so.
func cores(m Machine, ws windowStats) int {
	n := max(m.CPUs, 1)
	if ws.maxProcs > 0 && ws.maxProcs < n {
		n = ws.maxProcs
	}
	return n
}

// judge holds one window's facts while the rules run.
type judge struct {
	ws    windowStats
	m     Machine
	t     Target
	cores int
}

// busy is the host's CPU busy percent: everything but idle and I/O wait,
// so steal counts as unavailable.
func (j judge) busy() float64 { return 100 - j.ws.cpu.Idle - j.ws.cpu.IOWait }

// share is objbench's CPU as a percent of the cores it may use (-1 when
// the process was not sampled).
func (j judge) share() float64 {
	if !j.ws.hasProc {
		return -1
	}
	return j.ws.procCPU / float64(j.cores) * 100
}

func (j judge) cpu() *Finding {
	busy, share, sched := j.busy(), j.share(), time.Duration(j.ws.schedP99*float64(time.Second))
	hostFull := busy >= HostCPUBusy
	nums := map[string]float64{"cpus": float64(j.cores), "host_busy_pct": round(busy, 1),
		"objbench_cpu_pct": round(share, 1), "sched_p99_ms": round(j.ws.schedP99*1000, 2)}
	clientFull := share >= ClientCPUShare || (hostFull && share >= busy/2) || sched >= SchedLatencyHigh
	switch {
	case j.t.Embedded && (clientFull || hostFull):
		return &Finding{Kind: KindClientBound, Numbers: nums, Text: fmt.Sprintf("client-bound: host CPU %.0f%% busy, objbench and its embedded "+
			"server (one process) used %s of %s, Go scheduler p99 %s — client and server share this machine's "+
			"CPU, so this measures the machine, not a storage system; point --endpoint-url at a real server",
			busy, pct(share), coresText(j.cores), dur(sched))}
	case j.t.Loopback && hostFull:
		return &Finding{Kind: KindCPUShared, Numbers: nums, Text: fmt.Sprintf("CPU-bound on this machine: host CPU %.0f%% "+
			"busy, objbench %s of %s, the target on loopback much of the rest (Go scheduler p99 %s) — "+
			"client and target compete for the same CPUs; put them on separate machines to measure the target",
			busy, pct(share), coresText(j.cores), dur(sched))}
	case clientFull && share >= 0:
		used := fmt.Sprintf("objbench used %.0f%% of %s (host CPU %.0f%% busy)", share, coresText(j.cores), busy)
		if share < ClientCPUShare && hostFull { // the largest user of a full machine, not full by itself
			used = fmt.Sprintf("host CPU %.0f%% busy, objbench the largest user at %.0f%% of %s", busy, share,
				coresText(j.cores))
		}
		return &Finding{Kind: KindClientBound, Numbers: nums, Text: "client-bound: " + used + " and Go scheduler " +
			"p99 was " + dur(sched) + " — results understate the target; add client machines or lower concurrency"}
	case hostFull:
		text := fmt.Sprintf("CPU contention on the client: host CPU %.0f%% busy", busy)
		if share >= 0 {
			text += fmt.Sprintf(", objbench only %.0f%% of %s; other processes take the rest", share, coresText(j.cores))
		}
		return &Finding{Kind: KindCPUContended, Numbers: nums, Text: text + " — results understate the target"}
	}
	return nil
}
