//go:build unix

package s3

import "syscall"

// setSocketBuffer sets the socket's SO_SNDBUF or SO_RCVBUF (opt) to n bytes.
func setSocketBuffer(fd uintptr, opt, n int) error {
	return syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, opt, n)
}
