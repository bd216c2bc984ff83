package sysmon

import (
	"sort"
	"time"
)

// Span is a stretch of wall-clock time.
type Span struct{ Start, End time.Time }

// Seconds is the span's length.
func (s Span) Seconds() float64 { return s.End.Sub(s.Start).Seconds() }

// Assign marks each sample with the step whose span holds the sample's
// start and its second in that step (the T of the step's op records);
// samples between steps get step -1. steps[i] is step i.
func Assign(samples []Sample, steps []Span) {
	for i := range samples {
		s := &samples[i]
		s.Step, s.T = -1, 0
		for j, st := range steps {
			off := s.Start.Sub(st.Start)
			if off >= -minCut && s.Start.Before(st.End) {
				s.Step, s.T = j, int64(max(off.Round(time.Second), 0)/time.Second)
			}
		}
	}
}

// windowStats is the samples of one window folded together, each weighted
// by how much of its interval lies in the window.
type windowStats struct {
	covered  float64 // seconds of samples inside the window
	cpu      CPU
	disk     DiskIO
	devices  map[string]DeviceIO
	ifaces   map[string]NetIO
	swap     float64 // bytes/s in and out
	hasProc  bool
	procCPU  float64 // cores
	schedP99 float64 // median of the per-interval p99s: one GC hiccup does not decide
	maxProcs int
	// hasTarget: every sample in the window measured the target's own
	// process (targetCPU, cores); a window where it was missing for a
	// while does not pretend to know.
	hasTarget bool
	targetCPU float64
	noTarget  bool
}

func aggregate(samples []Sample, w Span) windowStats {
	ws := windowStats{devices: map[string]DeviceIO{}, ifaces: map[string]NetIO{}}
	var sched []float64
	for _, s := range samples {
		lo, hi := later(s.Start, w.Start), earlier(s.End(), w.End)
		wt := hi.Sub(lo).Seconds()
		if wt <= 0 {
			continue
		}
		ws.covered += wt
		ws.add(s, wt)
		if s.Proc != nil {
			sched = append(sched, s.Proc.SchedP99)
		}
	}
	if ws.covered == 0 {
		return ws
	}
	ws.scale(1 / ws.covered)
	if len(sched) > 0 {
		sort.Float64s(sched)
		ws.schedP99 = sched[len(sched)/2]
	}
	return ws
}

func (ws *windowStats) add(s Sample, wt float64) {
	ws.cpu = CPU{User: ws.cpu.User + s.CPU.User*wt, Sys: ws.cpu.Sys + s.CPU.Sys*wt, Idle: ws.cpu.Idle + s.CPU.Idle*wt,
		IOWait: ws.cpu.IOWait + s.CPU.IOWait*wt, Steal: ws.cpu.Steal + s.CPU.Steal*wt, IRQ: ws.cpu.IRQ + s.CPU.IRQ*wt,
		SoftIRQ: ws.cpu.SoftIRQ + s.CPU.SoftIRQ*wt}
	ws.disk = addDisk(ws.disk, s.Disk, wt)
	for _, d := range s.Disks {
		cur := ws.devices[d.Name]
		ws.devices[d.Name] = DeviceIO{Name: d.Name, DiskIO: addDisk(cur.DiskIO, d.DiskIO, wt), Util: cur.Util + d.Util*wt}
	}
	for _, n := range s.Ifaces {
		cur := ws.ifaces[n.Name]
		ws.ifaces[n.Name] = NetIO{RecvBytes: cur.RecvBytes + n.RecvBytes*wt, SendBytes: cur.SendBytes + n.SendBytes*wt,
			RecvPackets: cur.RecvPackets + n.RecvPackets*wt, SendPackets: cur.SendPackets + n.SendPackets*wt}
	}
	ws.swap += (s.PageIn + s.PageOut) * wt
	if s.Proc != nil {
		ws.hasProc = true
		ws.procCPU += s.Proc.CPU() * wt
		ws.maxProcs = max(ws.maxProcs, s.Proc.MaxProcs)
	}
	if s.Target != nil {
		ws.hasTarget = true
		ws.targetCPU += s.Target.CPU() * wt
	} else {
		ws.noTarget = true
	}
}

// scale multiplies every weighted sum by f, turning sums into means.
func (ws *windowStats) scale(f float64) {
	ws.cpu = CPU{User: ws.cpu.User * f, Sys: ws.cpu.Sys * f, Idle: ws.cpu.Idle * f, IOWait: ws.cpu.IOWait * f,
		Steal: ws.cpu.Steal * f, IRQ: ws.cpu.IRQ * f, SoftIRQ: ws.cpu.SoftIRQ * f}
	ws.disk = addDisk(DiskIO{}, ws.disk, f)
	for n, d := range ws.devices {
		ws.devices[n] = DeviceIO{Name: n, DiskIO: addDisk(DiskIO{}, d.DiskIO, f), Util: d.Util * f}
	}
	for n, x := range ws.ifaces {
		ws.ifaces[n] = NetIO{RecvBytes: x.RecvBytes * f, SendBytes: x.SendBytes * f,
			RecvPackets: x.RecvPackets * f, SendPackets: x.SendPackets * f}
	}
	ws.swap *= f
	ws.procCPU *= f
	ws.targetCPU *= f
	ws.hasTarget = ws.hasTarget && !ws.noTarget
}

func addDisk(acc, d DiskIO, wt float64) DiskIO {
	return DiskIO{ReadBytes: acc.ReadBytes + d.ReadBytes*wt, WriteBytes: acc.WriteBytes + d.WriteBytes*wt,
		Reads: acc.Reads + d.Reads*wt, Writes: acc.Writes + d.Writes*wt}
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
