package sysmon

import (
	"math"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fixtureRoots builds two machine trees from testdata/vm, one second apart
// (common files plus t0, common plus t1), applies mutate to both and links
// what git keeps poorly: proc/self and the process's socket descriptors.
func fixtureRoots(t *testing.T, mutate func(root string) error) [2]string {
	t.Helper()
	var roots [2]string
	for i, snap := range []string{"t0", "t1"} {
		root := t.TempDir()
		for _, src := range []string{"common", snap} {
			if err := os.CopyFS(root, os.DirFS(filepath.Join("testdata", "vm", src))); err != nil {
				t.Fatal(err)
			}
		}
		fd := filepath.Join(root, "proc", "42", "fd")
		if err := os.MkdirAll(fd, 0o755); err != nil {
			t.Fatal(err)
		}
		links := map[string]string{"proc/self": "42", "proc/42/fd/3": "socket:[1001]", "proc/42/fd/4": "socket:[1002]",
			"proc/42/fd/5": "socket:[1003]", "proc/42/fd/6": "/dev/null", "proc/42/fd/7": "socket:[1005]"}
		for name, target := range links {
			if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
				t.Fatal(err)
			}
		}
		if mutate != nil {
			if err := mutate(root); err != nil {
				t.Fatal(err)
			}
		}
		roots[i] = root
	}
	return roots
}

// want is what a fixture sample should show.
type want struct {
	cpu              CPU
	disk             DiskIO
	disks, devices   []string // devices with I/O; devices the totals count
	net              NetIO
	ifaces           []string
	missing          []string
	note             string
	conns            int
	intr, csw, pgOut float64
}

var vmWant = want{
	cpu:  CPU{User: 60, Sys: 20, Idle: 5, IOWait: 10, Steal: 1, IRQ: 1, SoftIRQ: 3},
	disk: DiskIO{ReadBytes: (2048 + 409600) * 512, WriteBytes: 4096 * 512, Reads: 300, Writes: 50},
	// vda1 and nvme0n1p1 are partitions; dm-0 sits on vda1 and loop0 is a
	// file: listed, never summed.
	disks: []string{"dm-0", "loop0", "nvme0n1", "vda"}, devices: []string{"nvme0n1", "vda"},
	net:    NetIO{RecvBytes: 1e6, SendBytes: 3e6, RecvPackets: 1000, SendPackets: 2000},
	ifaces: []string{"eth0"}, conns: 2, intr: 2500, csw: 40000, pgOut: 5 * 4096,
}

func TestDeltaFromRecordedSnapshots(t *testing.T) {
	noSteal := func(root string) error { // a kernel whose cpu lines stop before steal
		p := filepath.Join(root, "proc", "stat")
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		lines := strings.Split(string(b), "\n")
		lines[0] = strings.Join(strings.Fields(lines[0])[:8], " ")
		return os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644)
	}
	for _, c := range []struct {
		name     string
		mutate   func(root string) error
		loopback bool
		conns    ConnFilter
		edit     func(w *want)
	}{
		{name: "vm", conns: ConnFilter{IP: net.ParseIP("10.0.0.5"), Port: 9000}},
		{name: "target on loopback", loopback: true, conns: ConnFilter{IP: net.ParseIP("10.0.0.5"), Port: 9000},
			edit: func(w *want) {
				w.net = NetIO{RecvBytes: 7e6, SendBytes: 11e6, RecvPackets: 1500, SendPackets: 2500}
				w.ifaces = []string{"eth0", "lo"}
			}},
		{name: "any connection counts without a target", edit: func(w *want) { w.conns = 3 }},
		{name: "container without /sys", conns: ConnFilter{Port: 9000},
			mutate: func(root string) error { return os.RemoveAll(filepath.Join(root, "sys")) },
			edit: func(w *want) {
				w.note = "no /sys/block (a container?)"
			}},
		{name: "kernel without steal", mutate: noSteal, conns: ConnFilter{Port: 9000}, edit: func(w *want) {
			w.cpu = CPU{User: 120.0 / 198 * 100, Sys: 40.0 / 198 * 100, Idle: 10.0 / 198 * 100, IOWait: 20.0 / 198 * 100,
				IRQ: 2.0 / 198 * 100, SoftIRQ: 6.0 / 198 * 100}
			w.missing, w.note = []string{"steal"}, "does not report CPU steal"
		}},
		{name: "no diskstats", conns: ConnFilter{Port: 9000},
			mutate: func(root string) error { return os.Remove(filepath.Join(root, "proc", "diskstats")) },
			edit: func(w *want) {
				w.disk, w.disks, w.devices, w.missing, w.note = DiskIO{}, nil, nil, []string{"disk"}, "no block device counters"
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := vmWant
			if c.edit != nil {
				c.edit(&w)
			}
			roots := fixtureRoots(t, c.mutate)
			s, tl := sampleBetween(t, roots, Config{Loopback: c.loopback, Process: true, Conns: c.conns})
			checkSample(t, s, tl, w)
		})
	}
}

// sampleBetween reads the two trees as snapshots one second apart.
func sampleBetween(t *testing.T, roots [2]string, cfg Config) (Sample, Timeline) {
	t.Helper()
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	var snaps [2]snapshot
	var first *reader
	for i, root := range roots {
		cfg.Root = root
		r, err := newReader(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = r
		}
		snaps[i] = r.read(at.Add(time.Duration(i) * time.Second))
		if snaps[i].proc != nil {
			snaps[i].proc.rt = runtimeSnap{} // the test binary's runtime is not part of the fixture
		}
	}
	devs, ifs := first.countedNames()
	s := delta(snaps[0], snaps[1], first.counted, 4096)
	return s, Timeline{Devices: devs, Interfaces: ifs, Missing: first.missing, Notes: first.notes}
}

func checkSample(t *testing.T, s Sample, tl Timeline, w want) {
	t.Helper()
	if s.Dur != 1 || s.Step != -1 {
		t.Errorf("dur %v step %d, want 1 s outside any step", s.Dur, s.Step)
	}
	near(t, "cpu", s.CPU, w.cpu)
	near(t, "disk", s.Disk, w.disk)
	near(t, "net", s.Net, w.net)
	near(t, "interrupts, context switches, page out", [3]float64{s.Interrupts, s.CtxSwitches, s.PageOut},
		[3]float64{w.intr, w.csw, w.pgOut})
	var disks, ifaces []string
	for _, d := range s.Disks {
		disks = append(disks, d.Name)
	}
	for _, n := range s.Ifaces {
		ifaces = append(ifaces, n.Name)
	}
	same(t, "devices with I/O", disks, w.disks)
	same(t, "devices summed", tl.Devices, w.devices)
	same(t, "interfaces", ifaces, w.ifaces)
	same(t, "missing", tl.Missing, w.missing)
	if notes := strings.Join(tl.Notes, "\n"); !strings.Contains(notes, w.note) || (w.note == "") != (notes == "") {
		t.Errorf("notes %q, want one saying %q", notes, w.note)
	}
	if s.Proc == nil {
		t.Fatal("no process sample")
	}
	p := *s.Proc
	want := Process{User: 1.5, Sys: 0.3, Threads: 14, RSS: 3072 * uint64(os.Getpagesize()), Conns: w.conns}
	near(t, "process", p, want)
}

// near compares two values field by field, floats within 1e-9 relative.
func near(t *testing.T, what string, got, want any) {
	t.Helper()
	g, w := reflect.ValueOf(got), reflect.ValueOf(want)
	if !nearValue(g, w) {
		t.Errorf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}

func nearValue(g, w reflect.Value) bool {
	switch g.Kind() {
	case reflect.Float64:
		a, b := g.Float(), w.Float()
		return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b))
	case reflect.Struct:
		for i := range g.NumField() {
			if !nearValue(g.Field(i), w.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Array:
		for i := range g.Len() {
			if !nearValue(g.Index(i), w.Index(i)) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(g.Interface(), w.Interface())
}

func same(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("%s: got %v, want %v", what, got, want)
	}
}
