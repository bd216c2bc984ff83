package sysmon

import (
	"strings"
	"testing"
	"time"
)

var verdictT0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// seconds is n one-second samples like s, from verdictT0 + from seconds.
func seconds(from, n int, s Sample) []Sample {
	out := make([]Sample, n)
	for i := range out {
		out[i] = s
		out[i].Start, out[i].Dur = verdictT0.Add(time.Duration(from+i)*time.Second), 1
	}
	return out
}

func span(from, to float64) Span {
	sec := func(f float64) time.Time { return verdictT0.Add(time.Duration(f * float64(time.Second))) }
	return Span{sec(from), sec(to)}
}

func proc(cores, schedMs float64) *Process {
	return &Process{User: cores * 0.8, Sys: cores * 0.2, SchedP99: schedMs / 1000, MaxProcs: 2, Threads: 10}
}

var (
	burning = Sample{CPU: CPU{User: 70, Sys: 26, Idle: 4}, Proc: proc(1.92, 4)}
	calm    = Sample{CPU: CPU{User: 25, Sys: 10, Idle: 65}, Proc: proc(0.6, 0.05)}
	twoCPUs = Machine{CPUs: 2, Links: map[string]float64{"eth0": 10e9}}
)

func with(s Sample, edit func(*Sample)) Sample {
	edit(&s)
	return s
}

func TestVerdictRules(t *testing.T) {
	for _, c := range []struct {
		name    string
		samples []Sample
		window  Span
		machine Machine
		target  Target
		kinds   []string
		says    []string // in the findings' text, in order
		numbers map[string]float64
	}{
		{name: "client out of CPU", samples: seconds(0, 10, burning), window: span(1, 9), target: Target{Kind: "s3"},
			kinds: []string{KindClientBound},
			says: []string{"client-bound: objbench used 96% of the 2 cores it may use, Go scheduler p99 4.0 ms (host CPU 96% busy, " +
				"1.92 of 2 cores: objbench 1.92, other processes 0.00) — results understate the target"},
			numbers: map[string]float64{"objbench_cpu_pct": 96, "sched_p99_ms": 4, "cpus": 2, "window_s": 8}},
		{name: "embedded server shares the process", samples: seconds(0, 5, burning), window: span(0, 5),
			target: Target{Kind: "s3", Embedded: true}, kinds: []string{KindClientBound},
			says: []string{"objbench and its embedded server (one process) used 96% of the 2 cores it may use", "not a storage system"}},
		{name: "embedded server on a machine others keep busy", window: span(0, 5), target: Target{Kind: "s3", Embedded: true, Loopback: true},
			samples: seconds(0, 5, with(burning, func(s *Sample) { s.Proc = proc(0.36, 0.46) })),
			kinds:   []string{KindCPUContended}, says: []string{"mostly other processes: host CPU 96% busy, 1.92 of 2 cores: " +
				"objbench with its embedded server 0.36, other processes 1.56"},
			numbers: map[string]float64{"objbench_cores": 0.36, "other_cores": 1.56, "host_busy_cores": 1.92}},
		{name: "target on loopback takes the rest", window: span(0, 5), target: Target{Kind: "s3", Loopback: true, Process: "minio (pid 812)"},
			samples: seconds(0, 5, with(burning, func(s *Sample) { s.Proc = proc(0.7, 2); s.Target = &ProcessCPU{User: 0.9, Sys: 0.2} })),
			kinds:   []string{KindCPUShared}, says: []string{"client and target together: host CPU 96% busy, 1.92 of 2 cores: " +
				"objbench 0.70, the target minio (pid 812) 1.10, other processes 0.12 — client and target compete"},
			numbers: map[string]float64{"target_cores": 1.1, "objbench_cores": 0.7, "other_cores": 0.12}},
		{name: "objbench the larger of client and target", window: span(0, 5), target: Target{Kind: "s3", Loopback: true, Process: "objbench (pid 9)"},
			samples: seconds(0, 5, with(burning, func(s *Sample) { s.Proc = proc(1.5, 2); s.Target = &ProcessCPU{User: 0.3} })),
			kinds:   []string{KindCPUShared}, says: []string{"objbench 1.50, the target objbench (pid 9) 0.30, other processes 0.12"}},
		{name: "target on loopback not found", window: span(0, 5), target: Target{Kind: "s3", Loopback: true},
			samples: seconds(0, 5, with(burning, func(s *Sample) { s.Proc = proc(0.5, 2) })),
			kinds:   []string{KindCPUShared}, says: []string{"objbench 0.50, other processes 1.42 (the target's among them: " +
				"its process was not found"}},
		{name: "others busier than a local target and objbench", window: span(0, 5), target: Target{Kind: "s3", Loopback: true, Process: "minio (pid 812)"},
			samples: seconds(0, 5, with(burning, func(s *Sample) { s.Proc = proc(0.3, 9); s.Target = &ProcessCPU{User: 0.4} })),
			kinds:   []string{KindCPUContended}, says: []string{"mostly other processes: host CPU 96% busy, 1.92 of 2 cores: objbench 0.30, the target minio (pid 812) 0.40, other processes 1.22"}},
		{name: "other processes take the CPU", window: span(0, 5), target: Target{Kind: "s3"},
			samples: seconds(0, 5, with(burning, func(s *Sample) { s.Proc = proc(0.6, 2) })),
			kinds:   []string{KindCPUContended}, says: []string{"CPU contention on the client, mostly other processes: host CPU 96% busy, " +
				"1.92 of 2 cores: objbench 0.60, other processes 1.32"}},
		{name: "scheduler latency from others' load is contention", window: span(0, 5), target: Target{Kind: "s3"},
			samples: seconds(0, 5, with(burning, func(s *Sample) { s.Proc = proc(0.4, 30) })),
			kinds:   []string{KindCPUContended}, says: []string{"objbench 0.40, other processes 1.52"}},
		{name: "objbench the largest user of a full machine", window: span(0, 5), target: Target{Kind: "s3"},
			samples: seconds(0, 5, with(burning, func(s *Sample) { s.Proc = proc(1.2, 2) })),
			kinds:   []string{KindClientBound}, says: []string{"client-bound: objbench the largest user of a full machine, Go scheduler " +
				"p99 2.0 ms (host CPU 96% busy, 1.92 of 2 cores: objbench 1.20, other processes 0.72)"}},
		{name: "cgroup quota: one usable core", window: span(0, 5), target: Target{Kind: "s3"}, machine: Machine{CPUs: 4},
			samples: seconds(0, 5, with(calm, func(s *Sample) { s.Proc = proc(0.95, 1); s.Proc.MaxProcs = 1 })),
			kinds:   []string{KindClientBound}, says: []string{"objbench used 95% of the 1 core it may use"}},
		{name: "scheduler latency alone", window: span(0, 5), target: Target{Kind: "s3"},
			samples: seconds(0, 5, with(calm, func(s *Sample) { s.Proc = proc(0.6, 8) })),
			kinds:   []string{KindClientBound}, says: []string{"objbench's goroutines waited for a CPU while it used 30% of the 2 cores it may use, " +
				"Go scheduler p99 8.0 ms"}},
		{name: "client disk", window: span(0, 5), target: Target{Kind: "s3"},
			samples: seconds(0, 5, with(calm, func(s *Sample) {
				s.CPU = CPU{User: 20, Sys: 12, Idle: 30, IOWait: 38}
				s.Disk = DiskIO{ReadBytes: 340e6, Reads: 2600}
				s.Disks = []DeviceIO{{Name: "nvme0n1", DiskIO: s.Disk, Util: 97}}
			})),
			kinds: []string{KindDiskBound}, says: []string{"disk-bound on the client: reads 340 MB/s, nvme0n1 busy 97%, iowait 38%"},
			numbers: map[string]float64{"disk_read_bps": 340e6, "iowait_pct": 38, "disk_util_pct": 97}},
		{name: "file system target's disk", window: span(0, 5), target: Target{Kind: "fs"},
			samples: seconds(0, 5, with(calm, func(s *Sample) {
				s.Disk = DiskIO{WriteBytes: 90e6, Writes: 700}
				s.Disks = []DeviceIO{{Name: "vda", DiskIO: s.Disk, Util: 99}}
			})),
			kinds: []string{KindDiskBound}, says: []string{"disk-bound: writes 90 MB/s, vda busy 99%", "the measured directory"}},
		{name: "network near its link speed", window: span(0, 5), target: Target{Kind: "s3"},
			samples: seconds(0, 5, with(calm, func(s *Sample) {
				s.Ifaces = []IfaceIO{{Name: "eth0", NetIO: NetIO{SendBytes: 1.1e9}}, {Name: "lo", NetIO: NetIO{SendBytes: 9e9}}}
			})),
			kinds: []string{KindNetBound}, says: []string{"network near capacity: send 1.1 GB/s on eth0, 88% of its 10 Gb/s link (capacity from /sys/class/net/eth0/speed)"}},
		{name: "link speed from the flag", window: span(0, 5), target: Target{Kind: "s3", LinkSpeed: 1e9},
			machine: Machine{CPUs: 2},
			samples: seconds(0, 5, with(calm, func(s *Sample) { s.Ifaces = []IfaceIO{{Name: "ens5", NetIO: NetIO{RecvBytes: 120e6}}} })),
			kinds:   []string{KindNetBound}, says: []string{"recv 120 MB/s on ens5, 96% of its 1.0 Gb/s link (capacity from --link-speed)"}},
		{name: "nothing saturated", samples: seconds(0, 5, calm), window: span(0, 5), target: Target{Kind: "s3"},
			kinds: []string{KindTargetBound}, says: []string{"target-bound: client CPU 35% (objbench 30%), no client resource saturated"}},
		{name: "ramp-up outside the window does not count", window: span(3, 8), target: Target{Kind: "s3"},
			samples: append(seconds(0, 3, burning), seconds(3, 5, calm)...), kinds: []string{KindTargetBound}},
		{name: "steal and swapping come after the bottleneck", window: span(0, 5), target: Target{Kind: "s3"},
			samples: seconds(0, 5, with(calm, func(s *Sample) { s.CPU.Steal, s.CPU.Idle, s.PageOut = 15, 50, 4e6 })),
			kinds:   []string{KindTargetBound, KindSteal, KindSwapping}, says: []string{"target-bound", "CPU steal 15%", "swapping 4.0 MB/s"}},
		{name: "at most three findings", window: span(0, 5), target: Target{Kind: "s3"},
			samples: seconds(0, 5, with(burning, func(s *Sample) {
				s.CPU.IOWait, s.CPU.Steal, s.CPU.Idle = 30, 12, 0
				s.Ifaces = []IfaceIO{{Name: "eth0", NetIO: NetIO{RecvBytes: 1.2e9}}}
			})),
			kinds: []string{KindClientBound, KindDiskBound, KindNetBound}},
		{name: "too short to judge", samples: seconds(0, 1, burning), window: span(0.2, 0.7), target: Target{Kind: "s3"},
			kinds: []string{KindTooShort}, says: []string{"too short to judge the bottleneck: 0.5 s of samples"}},
		{name: "no process samples", window: span(0, 5), target: Target{Kind: "s3"},
			samples: seconds(0, 5, with(burning, func(s *Sample) { s.Proc = nil })),
			kinds:   []string{KindCPUContended}, says: []string{"CPU contention on the client: host CPU 96% busy — results"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := c.machine
			if m.CPUs == 0 {
				m = twoCPUs
			}
			got := Verdict(c.samples, c.window, m, c.target)
			checkFindings(t, got, c.kinds, c.says, c.numbers)
		})
	}
}

func checkFindings(t *testing.T, got []Finding, kinds, says []string, numbers map[string]float64) {
	t.Helper()
	var gotKinds, texts []string
	for _, f := range got {
		gotKinds, texts = append(gotKinds, f.Kind), append(texts, f.Text)
	}
	all := strings.Join(texts, "\n")
	if strings.Join(gotKinds, ",") != strings.Join(kinds, ",") {
		t.Fatalf("kinds %v, want %v:\n%s", gotKinds, kinds, all)
	}
	rest := all
	for _, s := range says {
		i := strings.Index(rest, s)
		if i < 0 {
			t.Fatalf("verdict does not say %q (in order):\n%s", s, all)
		}
		rest = rest[i+len(s):]
	}
	for k, v := range numbers {
		if got[0].Numbers[k] != v {
			t.Errorf("numbers[%s] = %v, want %v (all: %v)", k, got[0].Numbers[k], v, got[0].Numbers)
		}
	}
}
