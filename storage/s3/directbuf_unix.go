//go:build unix

package s3

import (
	"net"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawConn is the socket under a plain TCP connection, to wait for it to be
// readable without a buffer; nil for TLS, whose own buffer may hold data
// the socket no longer shows.
func rawConn(c net.Conn) syscall.RawConn {
	if tc, ok := c.(*net.TCPConn); ok {
		if rc, err := tc.SyscallConn(); err == nil {
			return rc
		}
	}
	return nil
}

func (r *rawReader) peek(fd uintptr) bool {
	if r.waited {
		return true
	}
	r.waited = true
	// recvfrom(2) without the sender's address: unix.Recvfrom made one
	// (an allocation a GET) that a TCP socket does not need.
	_, _, e := syscall.RawSyscall6(syscall.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&r.one[0])), 1,
		unix.MSG_PEEK|unix.MSG_DONTWAIT, 0, 0)
	return e != syscall.EAGAIN // data, the end, or an error the read will report
}

func (r *rawReader) read(fd uintptr) bool {
	p := r.p
	for {
		m, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		if e == unix.EINTR {
			continue
		}
		r.n, r.errno = int(m), e
		return e != unix.EAGAIN
	}
}
