package sysmon

import (
	"encoding/binary"
	"net"
	"unsafe"

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
// descriptor of this process, whatever else the machine holds; both into
// the stack (unix.GetsockoptTCPInfo and unix.Getpeername allocated a
// struct each: 46 MB of garbage in 15 s at 10,000 workers).

const tcpEstablished = 1 // the kernel's TCP_ESTABLISHED

// ownCount counts the established TCP connections among the descriptors
// fds of this process that f selects. A descriptor closed and reused
// since it was listed is asked as it is now: the count is a gauge.
func ownCount(fds []uintptr, f ConnFilter) int {
	n := 0
	for _, fd := range fds {
		var info unix.TCPInfo
		size := uint32(unsafe.Sizeof(info))
		_, _, e := unix.RawSyscall6(unix.SYS_GETSOCKOPT, fd, unix.IPPROTO_TCP, unix.TCP_INFO,
			uintptr(unsafe.Pointer(&info)), uintptr(unsafe.Pointer(&size)), 0)
		if e != 0 || size < 1 || info.State != tcpEstablished { // not a TCP socket, or not connected
			continue
		}
		var sa unix.RawSockaddrAny
		size = unix.SizeofSockaddrAny
		_, _, e = unix.RawSyscall(unix.SYS_GETPEERNAME, fd, uintptr(unsafe.Pointer(&sa)), uintptr(unsafe.Pointer(&size)))
		if e != 0 {
			continue
		}
		var ip net.IP
		var port uint16
		switch sa.Addr.Family {
		case unix.AF_INET:
			a := (*unix.RawSockaddrInet4)(unsafe.Pointer(&sa))
			ip, port = a.Addr[:], binary.BigEndian.Uint16((*[2]byte)(unsafe.Pointer(&a.Port))[:])
		case unix.AF_INET6:
			a := (*unix.RawSockaddrInet6)(unsafe.Pointer(&sa))
			ip, port = a.Addr[:], binary.BigEndian.Uint16((*[2]byte)(unsafe.Pointer(&a.Port))[:])
		default:
			continue
		}
		if f.match(ip, uint64(port)) {
			n++
		}
	}
	return n
}
