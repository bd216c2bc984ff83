//go:build !linux

package s3

import (
	"bufio"
	"net"
	"sync/atomic"
)

// fileSender sends from files on Linux only (directsend_linux.go).
type fileSender struct{ bw *bufio.Writer }

func newFileSender(net.Conn, *atomic.Uint64) *fileSender { return nil }

func (s *fileSender) Write(p []byte) (int, error) { return s.bw.Write(p) }
