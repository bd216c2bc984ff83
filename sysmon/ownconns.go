package sysmon

import (
	"net"

	"golang.org/x/sys/unix"
)

// Counting the process's established connections by asking each of its
// own socket descriptors (getsockopt TCP_INFO for the state, getpeername
// for the far end), not by reading /proc/net/tcp{,6}: for that file the
// kernel formats a line per socket of the whole network namespace and
// walks the whole established hash (262,144 buckets on a 24 GiB machine)
// for each page of it, 10-20 ms of system time a sample with a handful of
// sockets and 74 ms with 10,000 of other processes' (BenchmarkOpenConns);
// with 8 workers against a local MinIO that was a third of objbench's CPU
// (bench/README.md). Asking the descriptors costs two system calls per
// descriptor of this process, whatever else the machine holds.

const tcpEstablished = 1 // the kernel's TCP_ESTABLISHED

// ownCount counts the established TCP connections among the descriptors
// fds of this process that f selects. A descriptor closed and reused
// since it was listed is asked as it is now: the count is a gauge.
func ownCount(fds []uintptr, f ConnFilter) int {
	n := 0
	for _, fd := range fds {
		info, err := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO)
		if err != nil || info.State != tcpEstablished { // not a TCP socket, or not connected
			continue
		}
		sa, err := unix.Getpeername(int(fd))
		if err != nil {
			continue
		}
		var ip net.IP
		var port int
		switch a := sa.(type) {
		case *unix.SockaddrInet4:
			ip, port = net.IP(a.Addr[:]), a.Port
		case *unix.SockaddrInet6:
			ip, port = net.IP(a.Addr[:]), a.Port
		default:
			continue
		}
		if f.match(ip, uint64(port)) {
			n++
		}
	}
	return n
}
