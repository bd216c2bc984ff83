package sysmon

import (
	"sort"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"
)

// sectorSize is the unit of /proc/diskstats sector counts, whatever the
// device's own sector size.
const sectorSize = 512

// delta turns two snapshots into the sample of the interval between them.
// counted names the disks the totals sum; pageSize converts swapped pages
// to bytes.
func delta(a, b snapshot, counted map[string]bool, pageSize uint64) Sample {
	dur := b.at.Sub(a.at).Seconds()
	s := Sample{Step: -1, Start: a.at, Dur: dur}
	if dur <= 0 {
		return s
	}
	s.CPU = cpuDelta(a.cpu, b.cpu)
	s.Interrupts = rate(a.intr, b.intr, dur)
	s.CtxSwitches = rate(a.ctxt, b.ctxt, dur)
	s.Disk, s.Disks = diskDelta(a.disks, b.disks, counted, dur)
	s.Net, s.Ifaces = netDelta(a.nets, b.nets, dur)
	s.PageIn = rate(a.swapIn, b.swapIn, dur) * float64(pageSize)
	s.PageOut = rate(a.swapOt, b.swapOt, dur) * float64(pageSize)
	if a.proc != nil && b.proc != nil {
		s.Proc = procDelta(a.proc, b.proc, dur)
	}
	if a.target != nil && b.target != nil {
		s.Target = targetDelta(a.target, b.target, dur)
	}
	return s
}

// rate is a counter's increase per second; a counter that went backwards
// (reset, wrapped) counts as unchanged.
func rate(a, b uint64, dur float64) float64 {
	if b < a {
		return 0
	}
	return float64(b-a) / dur
}

func cpuDelta(a, b procfs.CPUStat) CPU {
	d := func(x, y float64) float64 { return max(y-x, 0) } // idle/iowait may step back on some kernels
	c := CPU{
		User: d(a.User, b.User) + d(a.Nice, b.Nice), Sys: d(a.System, b.System), Idle: d(a.Idle, b.Idle),
		IOWait: d(a.Iowait, b.Iowait), Steal: d(a.Steal, b.Steal), IRQ: d(a.IRQ, b.IRQ), SoftIRQ: d(a.SoftIRQ, b.SoftIRQ),
	}
	// Guest time is already inside user time, so it is not added again.
	total := c.User + c.Sys + c.Idle + c.IOWait + c.Steal + c.IRQ + c.SoftIRQ
	if total == 0 {
		return CPU{}
	}
	pct := func(v float64) float64 { return v / total * 100 }
	return CPU{User: pct(c.User), Sys: pct(c.Sys), Idle: pct(c.Idle), IOWait: pct(c.IOWait),
		Steal: pct(c.Steal), IRQ: pct(c.IRQ), SoftIRQ: pct(c.SoftIRQ)}
}

func diskDelta(a, b map[string]blockdevice.IOStats, counted map[string]bool, dur float64) (DiskIO, []DeviceIO) {
	var total DiskIO
	var devs []DeviceIO
	for name, y := range b {
		x, ok := a[name]
		if !ok {
			continue
		}
		io := DiskIO{
			ReadBytes: rate(x.ReadSectors, y.ReadSectors, dur) * sectorSize, WriteBytes: rate(x.WriteSectors, y.WriteSectors, dur) * sectorSize,
			Reads: rate(x.ReadIOs, y.ReadIOs, dur), Writes: rate(x.WriteIOs, y.WriteIOs, dur),
		}
		if io == (DiskIO{}) {
			continue
		}
		util := min(rate(x.IOsTotalTicks, y.IOsTotalTicks, dur)/1000*100, 100) // ticks are milliseconds
		devs = append(devs, DeviceIO{Name: name, DiskIO: io, Util: util})
		if counted[name] {
			total.ReadBytes += io.ReadBytes
			total.WriteBytes += io.WriteBytes
			total.Reads += io.Reads
			total.Writes += io.Writes
		}
	}
	sort.Slice(devs, func(i, j int) bool { return devs[i].Name < devs[j].Name })
	return total, devs
}

func netDelta(a, b map[string]procfs.NetDevLine, dur float64) (NetIO, []IfaceIO) {
	var total NetIO
	var ifs []IfaceIO
	for name, y := range b {
		x, ok := a[name]
		if !ok {
			continue
		}
		io := NetIO{
			RecvBytes: rate(x.RxBytes, y.RxBytes, dur), SendBytes: rate(x.TxBytes, y.TxBytes, dur),
			RecvPackets: rate(x.RxPackets, y.RxPackets, dur), SendPackets: rate(x.TxPackets, y.TxPackets, dur),
		}
		total.RecvBytes += io.RecvBytes
		total.SendBytes += io.SendBytes
		total.RecvPackets += io.RecvPackets
		total.SendPackets += io.SendPackets
		if io != (NetIO{}) {
			ifs = append(ifs, IfaceIO{Name: name, NetIO: io})
		}
	}
	sort.Slice(ifs, func(i, j int) bool { return ifs[i].Name < ifs[j].Name })
	return total, ifs
}

func procDelta(a, b *procSnap, dur float64) *Process {
	p := &Process{
		User: max(b.utime-a.utime, 0) / dur, Sys: max(b.stime-a.stime, 0) / dur,
		Threads: b.threads, RSS: b.rss, Goroutines: int(b.rt.goroutines), MaxProcs: int(b.rt.gomaxprocs), Conns: b.conns,
		SchedP99: quantileDelta(a.rt.schedCounts, b.rt.schedCounts, b.rt.schedBuckets, 0.99),
	}
	if b.rt.gomaxprocs > 0 {
		p.GCPause = max(b.rt.gcPauseCPU-a.rt.gcPauseCPU, 0) / float64(b.rt.gomaxprocs)
	}
	return p
}
