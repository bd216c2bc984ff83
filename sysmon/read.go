package sysmon

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"
)

// snapshot is the cumulative counters read at one instant; a Sample is the
// difference of two.
type snapshot struct {
	at     time.Time
	cpu    procfs.CPUStat
	intr   uint64
	ctxt   uint64
	disks  map[string]blockdevice.IOStats
	nets   map[string]procfs.NetDevLine
	swapIn uint64 // pages
	swapOt uint64
	proc   *procSnap   // nil when the process is not sampled
	target *targetSnap // nil without a target process (targetproc.go)
}

// procSnap is the process's cumulative counters and current gauges.
type procSnap struct {
	utime, stime float64 // seconds
	threads      int
	rss          uint64
	conns        int
	rt           runtimeSnap
}

// reader reads snapshots from one proc and sys tree. What the machine does
// not provide is decided once, at construction, so every sample of a run
// has the same columns.
type reader struct {
	proc     procfs.FS
	procRoot string
	block    blockdevice.FS
	hasBlock bool
	// whole holds the whole block devices (no partitions); counted those
	// the disk totals sum: no stacked (dm, md), loop, ram or zram devices,
	// whose I/O is either counted again below them or is not disk I/O.
	whole, counted map[string]bool
	// ifaces are the interfaces the network totals count.
	ifaces   map[string]bool
	pageSize uint64
	self     *procfs.Proc
	conns    ConnFilter
	own      bool // count connections by asking this process's descriptors (ownconns.go)
	rt       *runtimeReader
	// target is the target's own process on this machine, when found.
	target      *procfs.Proc
	targetInfo  *ProcessInfo
	targetStart uint64
	missing     []string
	notes       []string
}

func newReader(cfg Config) (*reader, error) {
	procRoot, sysRoot := cfg.root("proc"), cfg.root("sys")
	fs, err := procfs.NewFS(procRoot)
	if err != nil {
		return nil, fmt.Errorf("no %s: %w", procRoot, err)
	}
	if _, err := fs.Stat(); err != nil {
		return nil, fmt.Errorf("cannot read CPU counters: %w", err)
	}
	r := &reader{proc: fs, procRoot: procRoot, pageSize: uint64(os.Getpagesize()), conns: cfg.Conns}
	if !stealReported(filepath.Join(procRoot, "stat")) {
		r.miss("steal", "this kernel does not report CPU steal (/proc/stat has no steal column)")
	}
	r.initDisks(procRoot, sysRoot)
	r.initNet(fs, sysRoot, cfg.Loopback)
	if _, _, err := readSwap(filepath.Join(procRoot, "vmstat")); err != nil {
		r.miss("paging", "no swap paging counters: "+err.Error())
	}
	if cfg.Process {
		r.initProcess(fs)
	}
	if cfg.TargetProcess {
		r.initTarget(fs, cfg.Conns)
	}
	return r, nil
}

func (r *reader) miss(counter, note string) {
	r.missing = append(r.missing, counter)
	r.notes = append(r.notes, note)
}

func (r *reader) has(counter string) bool { return !slices.Contains(r.missing, counter) }

// stealReported is whether the first cpu line has the steal field (the
// eighth value); procfs reads a missing field as zero.
func stealReported(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	return sc.Scan() && len(strings.Fields(sc.Text())) >= 9
}

func (r *reader) initDisks(procRoot, sysRoot string) {
	bfs, err := blockdevice.NewFS(procRoot, sysRoot)
	if err != nil { // no sys tree at all: diskstats alone still tell a lot
		bfs, err = blockdevice.NewFS(procRoot, procRoot)
	}
	if err != nil {
		r.miss("disk", "no block device counters: "+err.Error())
		return
	}
	stats, err := bfs.ProcDiskstats()
	if err != nil {
		r.miss("disk", "no block device counters (/proc/diskstats): "+err.Error())
		return
	}
	r.block, r.hasBlock = bfs, true
	r.whole, r.counted = map[string]bool{}, map[string]bool{}
	devs, err := bfs.SysBlockDevices()
	if err != nil {
		r.notes = append(r.notes, "no /sys/block (a container?): whole disks are told from partitions by name only")
		names := make([]string, 0, len(stats))
		for _, d := range stats {
			names = append(names, d.DeviceName)
		}
		devs = wholeByName(names)
	}
	for _, d := range devs {
		r.whole[d] = true
		if !virtualDisk(d) && !stacked(sysRoot, d) {
			r.counted[d] = true
		}
	}
}

// virtualDisk is a device whose I/O is not disk I/O of its own: loop
// devices read files on other disks; ram and zram are memory.
func virtualDisk(name string) bool {
	for _, p := range []string{"loop", "ram", "zram"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// stacked is a device built on others (dm, md): its I/O reaches the
// devices below, which are counted instead. Without /sys it is judged by
// name.
func stacked(sysRoot, dev string) bool {
	entries, err := os.ReadDir(filepath.Join(sysRoot, "block", dev, "slaves"))
	if err != nil {
		return strings.HasPrefix(dev, "dm-") || strings.HasPrefix(dev, "md")
	}
	return len(entries) > 0
}

// wholeByName keeps the names that are not a partition of another name:
// sda1 of sda, nvme0n1p2 of nvme0n1, mmcblk0p1 of mmcblk0.
func wholeByName(names []string) []string {
	set := map[string]bool{}
	for _, n := range names {
		set[n] = true
	}
	var out []string
	for _, n := range names {
		base := strings.TrimRight(n, "0123456789")
		if base != n && (set[base] || (strings.HasSuffix(base, "p") && set[base[:len(base)-1]])) {
			continue
		}
		out = append(out, n)
	}
	return out
}

func (r *reader) initNet(fs procfs.FS, sysRoot string, loopback bool) {
	dev, err := fs.NetDev()
	if err != nil {
		r.miss("net", "no network counters (/proc/net/dev): "+err.Error())
		return
	}
	names := make([]string, 0, len(dev))
	for n := range dev {
		names = append(names, n)
	}
	sort.Strings(names)
	r.ifaces = countedIfaces(names, sysRoot, loopback)
}

// countedIfaces picks the interfaces whose traffic is the machine's own:
// physical ones (with a device in /sys), or, where none is (a container's
// veth), every one but lo and ifb (a mirror of another interface's
// ingress). lo counts only when the target is on loopback.
func countedIfaces(names []string, sysRoot string, loopback bool) map[string]bool {
	out := map[string]bool{}
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(sysRoot, "class", "net", n, "device")); err == nil {
			out[n] = true
		}
	}
	if len(out) == 0 {
		for _, n := range names {
			if n != "lo" && !strings.HasPrefix(n, "ifb") {
				out[n] = true
			}
		}
	}
	if loopback {
		out["lo"] = true
	}
	return out
}

// readSwap reads pages swapped in and out from /proc/vmstat, which
// procfs does not parse.
func readSwap(path string) (in, out uint64, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	found := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), " ")
		switch k {
		case "pswpin":
			in, err = strconv.ParseUint(v, 10, 64)
		case "pswpout":
			out, err = strconv.ParseUint(v, 10, 64)
		default:
			continue
		}
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %s: %w", path, k, err)
		}
		found++
	}
	if found < 2 {
		return 0, 0, fmt.Errorf("%s has no pswpin/pswpout", path)
	}
	return in, out, nil
}

// read takes a snapshot. A counter that fails now, after it was there at
// construction, reads as unchanged rather than failing the run.
func (r *reader) read(at time.Time) snapshot {
	s := snapshot{at: at, disks: map[string]blockdevice.IOStats{}, nets: map[string]procfs.NetDevLine{}}
	if st, err := r.proc.Stat(); err == nil {
		s.cpu, s.intr, s.ctxt = st.CPUTotal, st.IRQTotal, st.ContextSwitches
	}
	if r.hasBlock {
		if stats, err := r.block.ProcDiskstats(); err == nil {
			for _, d := range stats {
				if r.whole[d.DeviceName] {
					s.disks[d.DeviceName] = d.IOStats
				}
			}
		}
	}
	if r.ifaces != nil {
		if dev, err := r.proc.NetDev(); err == nil {
			for n, l := range dev {
				if r.ifaces[n] {
					s.nets[n] = l
				}
			}
		}
	}
	if r.has("paging") {
		s.swapIn, s.swapOt, _ = readSwap(filepath.Join(r.procRoot, "vmstat"))
	}
	if r.self != nil {
		s.proc = r.readProcess()
	}
	if r.target != nil {
		s.target = r.readTarget()
	}
	return s
}

// counted lists the counted devices and interfaces, sorted.
func (r *reader) countedNames() (devices, ifaces []string) {
	for d := range r.counted {
		devices = append(devices, d)
	}
	for n := range r.ifaces {
		ifaces = append(ifaces, n)
	}
	sort.Strings(devices)
	sort.Strings(ifaces)
	return devices, ifaces
}
