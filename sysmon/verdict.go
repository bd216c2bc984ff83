package sysmon

import (
	"cmp"
	"fmt"
	"strings"
	"time"
)

// Thresholds of the verdict rules (documented in docs/machine.md, "The verdict").
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
	// Process names the target's own process on this machine, when the
	// sampler measured it ("minio (pid 812)"); Judge fills it in.
	Process string
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

// cpu judges who used the CPUs: objbench, the target's own process when
// it is on this machine and was found, and every other process (the rest
// of the busy time). Rules, in order (docs/machine.md, "The verdict"):
// objbench out of its usable cores is client-bound; on a full machine,
// other processes holding half of the busy CPU is contention, a target on
// this machine competes with objbench (cpu-shared), and objbench holding
// half is client-bound; high scheduler latency alone is client-bound.
func (j judge) cpu() *Finding {
	u, share := j.use(), j.share()
	sched := time.Duration(j.ws.schedP99 * float64(time.Second))
	hostFull := j.busy() >= HostCPUBusy
	localTarget := j.t.Loopback && !j.t.Embedded
	nums := j.cpuNumbers(u, share)
	switch {
	case share >= ClientCPUShare:
		return j.clientBound(nums, u, fmt.Sprintf("%s used %.0f%% of the %s it may use", j.client(), share, coresText(j.cores)), sched)
	case hostFull && u.objbench < 0: // objbench's own CPU unknown: no one can be blamed
		return &Finding{Kind: KindCPUContended, Numbers: nums, Text: fmt.Sprintf("CPU contention on the client: host CPU %.0f%% busy"+
			" — results understate the target", j.busy())}
	case hostFull && u.others >= u.busy/2 && (!localTarget || u.target >= 0):
		return &Finding{Kind: KindCPUContended, Numbers: nums, Text: "CPU contention on the client, mostly other processes: " +
			j.who(u) + " — results understate the target; measure on a machine these processes leave alone"}
	case hostFull && localTarget:
		text := "CPU-bound on this machine, client and target together: " + j.who(u)
		if u.target < 0 {
			text += " (the target's among them: its process was not found, see the timeline's notes)"
		}
		return &Finding{Kind: KindCPUShared, Numbers: nums, Text: text + " — client and target compete for the " +
			"same CPUs; put them on separate machines to measure the target"}
	case hostFull && u.objbench >= u.busy/2:
		return j.clientBound(nums, u, j.client()+" the largest user of a full machine", sched)
	case hostFull:
		return &Finding{Kind: KindCPUContended, Numbers: nums, Text: "CPU contention on the client: " + j.who(u) +
			" — results understate the target"}
	case sched >= SchedLatencyHigh && share >= 0:
		return j.clientBound(nums, u, fmt.Sprintf("objbench's goroutines waited for a CPU while it used %.0f%% of the %s it may use",
			share, coresText(j.cores)), sched)
	}
	return nil
}

func (j judge) client() string {
	if j.t.Embedded {
		return "objbench and its embedded server (one process)"
	}
	return "objbench"
}

// clientBound is the finding that objbench limited the run: lead says
// how, then the scheduler latency and who used the CPU.
func (j judge) clientBound(nums map[string]float64, u cpuUse, lead string, sched time.Duration) *Finding {
	text := "client-bound: " + lead + ", Go scheduler p99 " + dur(sched) + " (" + j.who(u) + ")"
	if j.t.Embedded {
		return &Finding{Kind: KindClientBound, Numbers: nums, Text: text + " — client and server share this machine's CPU, " +
			"so this measures the machine, not a storage system; point --endpoint-url at a real server"}
	}
	return &Finding{Kind: KindClientBound, Numbers: nums, Text: text + " — results understate the target; add client " +
		"machines or lower concurrency"}
}

// cpuUse is who used the machine's CPUs during the window, in cores; -1
// where it was not measured.
type cpuUse struct {
	busy, objbench, target, others float64
}

func (j judge) use() cpuUse {
	u := cpuUse{busy: j.busy() / 100 * float64(max(j.m.CPUs, 1)), objbench: -1, target: -1}
	rest := u.busy
	if j.ws.hasProc {
		u.objbench = j.ws.procCPU
		rest -= u.objbench
	}
	if j.ws.hasTarget {
		u.target = j.ws.targetCPU
		rest -= u.target
	}
	u.others = max(rest, 0)
	return u
}

// who says who used the busy CPU, in cores: "host CPU 97% busy, 1.94 of
// 2 cores: objbench 0.71, the target minio (pid 812) 1.02, other
// processes 0.21".
func (j judge) who(u cpuUse) string {
	text := fmt.Sprintf("host CPU %.0f%% busy, %.2f of %s: ", j.busy(), u.busy, coresText(max(j.m.CPUs, 1)))
	var parts []string
	if u.objbench >= 0 {
		name := "objbench"
		if j.t.Embedded {
			name = "objbench with its embedded server"
		}
		parts = append(parts, fmt.Sprintf("%s %.2f", name, u.objbench))
	}
	if u.target >= 0 {
		parts = append(parts, fmt.Sprintf("the target %s %.2f", cmp.Or(j.t.Process, "process"), u.target))
	}
	others := "other processes"
	if u.objbench < 0 {
		others = "processes"
	}
	parts = append(parts, fmt.Sprintf("%s %.2f", others, u.others))
	return text + strings.Join(parts, ", ")
}

func (j judge) cpuNumbers(u cpuUse, share float64) map[string]float64 {
	nums := map[string]float64{"cpus": float64(j.cores), "host_busy_pct": round(j.busy(), 1),
		"objbench_cpu_pct": round(share, 1), "sched_p99_ms": round(j.ws.schedP99*1000, 2),
		"host_busy_cores": round(u.busy, 2), "other_cores": round(u.others, 2)}
	if u.objbench >= 0 {
		nums["objbench_cores"] = round(u.objbench, 2)
	}
	if u.target >= 0 {
		nums["target_cores"] = round(u.target, 2)
	}
	return nums
}
