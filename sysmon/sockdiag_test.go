package sysmon

import (
	"net"
	"path/filepath"
	"testing"

	"github.com/prometheus/procfs"
)

// TestDiagCountsWhatProcNetTCPShows opens connections to a listener of
// its own (both ends in this process) and counts them both ways: through
// socket diagnostics and by reading /proc/net/tcp{,6}.
func TestDiagCountsWhatProcNetTCPShows(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	const n = 5
	for range n {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		s, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
	}
	fs, err := procfs.NewFS("/proc")
	if err != nil {
		t.Skip("no /proc:", err)
	}
	self, err := fs.Self()
	if err != nil {
		t.Fatal(err)
	}
	r := &reader{procRoot: "/proc", self: &self}
	cases := []struct {
		name string
		f    ConnFilter
		want int
	}{
		{"to the listener's port", ConnFilter{Port: port}, n},
		{"to its address and port", ConnFilter{IP: net.ParseIP("127.0.0.1"), Port: port}, n},
		{"any: both ends", ConnFilter{}, 2 * n},
		{"another address", ConnFilter{IP: net.ParseIP("10.1.2.3"), Port: port}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r.conns = c.f
			r.diag = false
			fromProc := r.openConns()
			r.diag = true
			fromDiag := r.openConns()
			if !r.diag {
				t.Skip("socket diagnostics refused here; /proc counted", fromProc)
			}
			if fromDiag != c.want || fromProc != c.want {
				t.Errorf("socket diagnostics count %d, %s %d; want %d", fromDiag, filepath.Join("/proc", "net", "tcp*"), fromProc, c.want)
			}
		})
	}
}

// BenchmarkOpenConns is the sampler's once-a-second connection count,
// both ways, with whatever sockets the machine holds.
func BenchmarkOpenConns(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	fs, err := procfs.NewFS("/proc")
	if err != nil {
		b.Skip("no /proc:", err)
	}
	self, err := fs.Self()
	if err != nil {
		b.Fatal(err)
	}
	for _, diag := range []bool{true, false} {
		name := "proc"
		if diag {
			name = "diag"
		}
		b.Run(name, func(b *testing.B) {
			r := &reader{procRoot: "/proc", self: &self, conns: ConnFilter{Port: ln.Addr().(*net.TCPAddr).Port}}
			for b.Loop() {
				r.diag = diag
				if r.openConns() != 1 {
					b.Fatal("not one connection")
				}
			}
		})
	}
}
