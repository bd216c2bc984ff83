package sysmon

import (
	"net"
	"path/filepath"
	"testing"

	"github.com/prometheus/procfs"
)

// TestOwnDescriptorsCountWhatProcNetTCPShows opens connections to a listener of
// its own (both ends in this process) and counts them both ways: by
// asking its descriptors and by reading /proc/net/tcp{,6}.
func TestOwnDescriptorsCountWhatProcNetTCPShows(t *testing.T) {
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
			r.own = false
			fromProc := r.openConns()
			r.own = true
			fromDiag := r.openConns()
			if fromDiag != c.want || fromProc != c.want {
				t.Errorf("its descriptors count %d, %s %d; want %d", fromDiag, filepath.Join("/proc", "net", "tcp*"), fromProc, c.want)
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
	for _, own := range []bool{true, false} {
		name := "proc"
		if own {
			name = "own"
		}
		b.Run(name, func(b *testing.B) {
			r := &reader{procRoot: "/proc", self: &self, conns: ConnFilter{Port: ln.Addr().(*net.TCPAddr).Port}}
			for b.Loop() {
				r.own = own
				if r.openConns() != 1 {
					b.Fatal("not one connection")
				}
			}
		})
	}
}
