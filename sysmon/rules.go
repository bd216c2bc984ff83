package sysmon

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

func (j judge) disk() *Finding {
	dev, util := j.busiestDisk()
	io := j.ws.disk
	if util < DiskUtilHigh && j.ws.cpu.IOWait < IOWaitHigh {
		return nil
	}
	nums := map[string]float64{"disk_read_bps": round(io.ReadBytes, 0), "disk_write_bps": round(io.WriteBytes, 0),
		"iowait_pct": round(j.ws.cpu.IOWait, 1), "disk_util_pct": round(util, 1)}
	var what []string
	if io.ReadBytes >= 1e6 || io.ReadBytes >= io.WriteBytes {
		what = append(what, "reads "+rateText(io.ReadBytes))
	}
	if io.WriteBytes >= 1e6 || io.WriteBytes > io.ReadBytes {
		what = append(what, "writes "+rateText(io.WriteBytes))
	}
	if dev != "" {
		what = append(what, fmt.Sprintf("%s busy %.0f%%", dev, util))
	}
	what = append(what, fmt.Sprintf("iowait %.0f%%", j.ws.cpu.IOWait))
	facts := strings.Join(what, ", ")
	switch {
	case j.t.Kind == "fs":
		return &Finding{Kind: KindDiskBound, Numbers: nums, Text: "disk-bound: " + facts +
			" — the disk under the measured directory is the limit"}
	case j.t.Embedded || j.t.Loopback:
		return &Finding{Kind: KindDiskBound, Numbers: nums, Text: "disk-bound on this machine: " + facts +
			" — the target keeps its data on this machine's disks"}
	}
	return &Finding{Kind: KindDiskBound, Numbers: nums, Text: "disk-bound on the client: " + facts}
}

// busiestDisk is the device with the highest utilization in the window.
func (j judge) busiestDisk() (string, float64) {
	name, util := "", 0.0
	for _, d := range sortedDevices(j.ws.devices) {
		if d.Util > util {
			name, util = d.Name, d.Util
		}
	}
	return name, util
}

func sortedDevices(m map[string]DeviceIO) []DeviceIO {
	out := make([]DeviceIO, 0, len(m))
	for _, d := range m {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// network finds the interface closest to its link speed; it judges only
// interfaces whose capacity is known.
func (j judge) network() *Finding {
	var best *Finding
	bestPct := 0.0
	names := make([]string, 0, len(j.ws.ifaces))
	for n := range j.ws.ifaces {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		capacity, from := j.linkSpeed(name)
		if capacity <= 0 {
			continue
		}
		io := j.ws.ifaces[name]
		dir, bps := "send", io.SendBytes
		if io.RecvBytes > bps {
			dir, bps = "recv", io.RecvBytes
		}
		p := bps * 8 / capacity * 100
		if p < NetNearCapacity || p <= bestPct {
			continue
		}
		bestPct = p
		best = &Finding{Kind: KindNetBound, Numbers: map[string]float64{"net_" + dir + "_bps": round(bps, 0),
			"link_bps": capacity, "link_pct": round(p, 1)},
			Text: fmt.Sprintf("network near capacity: %s %s on %s, %.0f%% of its %s link (capacity from %s)",
				dir, rateText(bps), name, p, bitsText(capacity), from)}
	}
	return best
}

func (j judge) linkSpeed(iface string) (float64, string) {
	if iface == "lo" {
		return 0, ""
	}
	if j.t.LinkSpeed > 0 {
		return j.t.LinkSpeed, "--link-speed"
	}
	return j.m.Links[iface], "/sys/class/net/" + iface + "/speed"
}

func (j judge) target() Finding {
	busy, share := j.busy(), j.share()
	nums := map[string]float64{"host_busy_pct": round(busy, 1), "objbench_cpu_pct": round(share, 1),
		"cpus": float64(j.cores)}
	switch {
	case j.t.Embedded:
		return Finding{Kind: KindTargetBound, Numbers: nums, Text: fmt.Sprintf("target-bound: objbench with its "+
			"embedded server used %s of %s, no resource of this machine saturated — the embedded server's "+
			"own limits (locking, latency) set the pace", pct(share), coresText(j.cores))}
	case j.t.Loopback:
		u := j.use()
		nums = j.cpuNumbers(u, share)
		return Finding{Kind: KindTargetBound, Numbers: nums, Text: "target-bound: no resource of this machine saturated (" +
			j.who(u) + ") — the target on loopback sets the pace by its latency or internal limits"}
	}
	return Finding{Kind: KindTargetBound, Numbers: nums, Text: fmt.Sprintf("target-bound: client CPU %.0f%% "+
		"(objbench %s), no client resource saturated — the target's speed or latency sets the pace "+
		"(if its latency, more concurrency helps)", busy, pct(share))}
}

func (j judge) steal() *Finding {
	if j.ws.cpu.Steal < StealHigh {
		return nil
	}
	return &Finding{Kind: KindSteal, Numbers: map[string]float64{"steal_pct": round(j.ws.cpu.Steal, 1)},
		Text: fmt.Sprintf("CPU steal %.0f%%: the hypervisor gives this machine's CPUs to others — "+
			"expect the numbers to vary from run to run", j.ws.cpu.Steal)}
}

func (j judge) swapping() *Finding {
	if j.ws.swap < SwapHigh {
		return nil
	}
	return &Finding{Kind: KindSwapping, Numbers: map[string]float64{"swap_bps": round(j.ws.swap, 0)},
		Text: fmt.Sprintf("swapping %s: this machine is short of memory", rateText(j.ws.swap))}
}

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

func coresText(n int) string {
	if n == 1 {
		return "1 core"
	}
	return fmt.Sprintf("%d cores", n)
}

func pct(share float64) string {
	if share < 0 {
		return "an unknown share"
	}
	return fmt.Sprintf("%.0f%%", share)
}

// rateText formats bytes per second in decimal units, as link speeds and
// disk datasheets are.
func rateText(bps float64) string {
	return decimal(bps, "B") + "/s"
}

func bitsText(bps float64) string { return decimal(bps, "b") + "/s" }

func decimal(v float64, unit string) string {
	prefixes := []string{"", "k", "M", "G", "T"}
	i := 0
	for v >= 1000 && i < len(prefixes)-1 {
		v /= 1000
		i++
	}
	if v < 10 && i > 0 {
		return fmt.Sprintf("%.1f %s%s", v, prefixes[i], unit)
	}
	return fmt.Sprintf("%.0f %s%s", v, prefixes[i], unit)
}

func dur(d time.Duration) string {
	switch {
	case d >= time.Millisecond:
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%d µs", d.Microseconds())
	}
}
