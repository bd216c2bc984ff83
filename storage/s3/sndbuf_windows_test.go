package s3

import "syscall"

// setSocketBuffer sets the socket's SO_SNDBUF or SO_RCVBUF (opt) to n bytes.
func setSocketBuffer(fd uintptr, opt, n int) error {
	return syscall.SetsockoptInt(syscall.Handle(fd), syscall.SOL_SOCKET, opt, n)
}
