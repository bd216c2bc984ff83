package s3

import (
	"net"
	"syscall"
)

// rawConn is nil here: connections are read through net.Conn, with the
// read buffer taken while each waits (the raw reads are Unix system
// calls).
func rawConn(c net.Conn) syscall.RawConn { return nil }

// peek and read are never called here (rawConn is nil).
func (r *rawReader) peek(fd uintptr) bool { return true }

func (r *rawReader) read(fd uintptr) bool {
	r.errno = syscall.EWINDOWS
	return true
}
