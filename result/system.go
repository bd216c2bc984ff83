package result

import "time"

// System is what the machine did during a run, second by second, and the
// verdict drawn from it.
type System struct {
	Timeline
	// LinkSpeed is the capacity given with --link-speed (bits/s), if any.
	LinkSpeed float64       `json:"link_bps,omitempty"`
	Verdicts  []StepVerdict `json:"verdicts,omitempty"`
}

// StepVerdict is the verdict on one main step, over its common window.
type StepVerdict struct {
	Step     int       `json:"step"`
	Findings []Finding `json:"findings"`
}

// Finding is one conclusion of a verdict: its kind (client-bound,
// target-bound...), the sentence a report prints, and the figures behind it.
type Finding struct {
	Kind    string             `json:"kind"`
	Text    string             `json:"text"`
	Numbers map[string]float64 `json:"numbers"`
}

// Machine describes the client machine of a run.
type Machine struct {
	Hostname    string `json:"hostname"`
	OS          string `json:"os"`
	Arch        string `json:"arch"`
	Kernel      string `json:"kernel,omitempty"`
	CPUs        int    `json:"cpus"`
	CPUModel    string `json:"cpu_model,omitempty"`
	MemoryBytes uint64 `json:"memory_bytes,omitempty"`
	GoVersion   string `json:"go_version"`
	// Links is each network interface's link speed in bits/s, where the
	// kernel reports one (virtual NICs often do not).
	Links map[string]float64 `json:"link_bps,omitempty"`
}

// Sample is what the machine (and objbench itself) did during one interval,
// usually one second of a step. Rates are per second over Dur; CPU figures
// are percent of all CPUs, as dstat shows them.
type Sample struct {
	// Step is the index of the step the interval belongs to (-1: between
	// steps, or a monitor run) and T its second in that step, the same T
	// as the step's per-second op records.
	Step  int       `json:"step"`
	T     int64     `json:"t"`
	Start time.Time `json:"start"`
	Dur   float64   `json:"dur_s"`

	CPU CPU `json:"cpu"`
	// Disk sums whole devices only (never a partition and the disk it is
	// on); Disks lists every device that did I/O, stacked ones included.
	Disk  DiskIO     `json:"disk"`
	Disks []DeviceIO `json:"disks,omitempty"`
	// Net sums the counted interfaces (no lo unless the target is on
	// loopback); Ifaces lists each of them.
	Net    NetIO     `json:"net"`
	Ifaces []IfaceIO `json:"ifaces,omitempty"`

	PageIn      float64 `json:"page_in_bps"` // swap-ins, bytes/s (dstat's paging)
	PageOut     float64 `json:"page_out_bps"`
	Interrupts  float64 `json:"interrupts_ps"`
	CtxSwitches float64 `json:"ctx_switches_ps"`

	Proc *Process `json:"proc,omitempty"`
	// Target is the target's own process during the interval, when it
	// runs on this machine as a process of its own (Timeline.TargetProcess).
	Target *ProcessCPU `json:"target_proc,omitempty"`
}

// End is when the interval ended.
func (s Sample) End() time.Time { return s.Start.Add(time.Duration(s.Dur * float64(time.Second))) }

// CPU is host CPU time by state, percent of all CPUs. User includes nice
// (as dstat's usr does); IRQ and SoftIRQ have their own columns, where
// dstat folds them away.
type CPU struct {
	User    float64 `json:"usr"`
	Sys     float64 `json:"sys"`
	Idle    float64 `json:"idl"`
	IOWait  float64 `json:"wai"`
	Steal   float64 `json:"stl"`
	IRQ     float64 `json:"irq"`
	SoftIRQ float64 `json:"sirq"`
}

// Busy is the percent of CPU doing work: neither idle nor waiting for I/O
// nor stolen by the hypervisor.
func (c CPU) Busy() float64 { return c.User + c.Sys + c.IRQ + c.SoftIRQ }

// DiskIO is block I/O per second.
type DiskIO struct {
	ReadBytes  float64 `json:"read_bps"`
	WriteBytes float64 `json:"write_bps"`
	Reads      float64 `json:"reads_ps"`
	Writes     float64 `json:"writes_ps"`
}

// DeviceIO is one block device's I/O. Util is the percent of the interval
// the device had I/O in flight (iostat's %util).
type DeviceIO struct {
	Name string `json:"name"`
	DiskIO
	Util float64 `json:"util"`
}

// NetIO is network traffic per second.
type NetIO struct {
	RecvBytes   float64 `json:"recv_bps"`
	SendBytes   float64 `json:"send_bps"`
	RecvPackets float64 `json:"recv_pps"`
	SendPackets float64 `json:"send_pps"`
}

// IfaceIO is one interface's traffic.
type IfaceIO struct {
	Name string `json:"name"`
	NetIO
}

// Process is objbench's own process during the interval. CPU figures are
// in cores (1.5 = one and a half CPUs busy).
type Process struct {
	User       float64 `json:"user_cores"`
	Sys        float64 `json:"sys_cores"`
	Threads    int     `json:"threads"`
	RSS        uint64  `json:"rss_bytes"`
	Goroutines int     `json:"goroutines"`
	MaxProcs   int     `json:"gomaxprocs"` // CPUs Go code may use at once (cgroup limits included)
	// GCPause is the time the program stood still for the collector, and
	// SchedP99 the 99th percentile of how long a runnable goroutine waited
	// for a CPU: high values mean the client itself is slowing its ops.
	GCPause  float64 `json:"gc_pause_s"`
	SchedP99 float64 `json:"sched_p99_s"`
	// Conns is the number of established TCP connections of the process
	// (to the target when its address is known).
	Conns int `json:"conns"`
}

// CPU is the process's CPU use in cores.
func (p Process) CPU() float64 { return p.User + p.Sys }

// ProcessInfo names another process on this machine: the target's, found
// by the socket it listens on.
type ProcessInfo struct {
	PID     int    `json:"pid"`
	Command string `json:"command"`
	Listen  string `json:"listen"` // the address its socket listens on
}

// ProcessCPU is another process's CPU use in cores.
type ProcessCPU struct {
	User float64 `json:"user_cores"`
	Sys  float64 `json:"sys_cores"`
}

// CPU is the process's CPU use in cores.
func (p ProcessCPU) CPU() float64 { return p.User + p.Sys }

// Timeline is every sample of one sampler run and what it could not see.
type Timeline struct {
	Interval float64  `json:"interval_s"`
	Samples  []Sample `json:"samples"`
	// Devices and Interfaces are those the totals count; Missing names
	// counters this machine does not provide ("disk", "net", "steal",
	// "paging", "process"), whose columns are then empty; Notes say why.
	Devices    []string `json:"devices,omitempty"`
	Interfaces []string `json:"interfaces,omitempty"`
	Missing    []string `json:"missing,omitempty"`
	Notes      []string `json:"notes,omitempty"`
	// TargetProcess is the target's own process on this machine, whose
	// CPU the samples' Target holds, when the sampler found it.
	TargetProcess *ProcessInfo `json:"target_process,omitempty"`
}
