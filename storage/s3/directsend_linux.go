//go:build linux

package s3

import (
	"bufio"
	"io"
	"net"
	"os"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// fileSender is what a plain TCP connection writes a large request body
// into: a payload.FileWriter, which sends the pieces a payload Reader
// hands it as places in its block's memfd with sendfile(2), after the
// request head buffered before them. The kernel takes the block's pages
// by reference instead of copying every byte out of the process (on
// loopback the receiver still copies, in its own process).
// sendfile(2) is called with an offset of ours, never the file's: many
// workers send from the one memfd at once (net.TCPConn.ReadFrom of an
// *os.File would move the file's shared offset). The function RawConn.Write
// calls is made once per connection (newFileSender): a closure per call
// would be an allocation per piece.
type fileSender struct {
	rc  syscall.RawConn
	bw  *bufio.Writer // the request's head goes through it; set per request
	src int           // the piece being sent: its file,
	off int64         // where in it the next byte is,
	n   int           // and how many bytes are left
	err error
	fn  func(fd uintptr) bool
	// sentBytes counts the bytes sent from files (the Store's).
	sentBytes *atomic.Uint64
}

// newFileSender returns a sender for nc, or nil when nc is not a plain
// TCP connection (TLS must encrypt the bytes in user space).
func newFileSender(nc net.Conn, sentBytes *atomic.Uint64) *fileSender {
	rc := rawConn(nc)
	if rc == nil {
		return nil
	}
	s := &fileSender{rc: rc, sentBytes: sentBytes}
	s.fn = s.send
	return s
}

func (s *fileSender) Write(p []byte) (int, error) { return s.bw.Write(p) }

// WriteFile sends n bytes at off in the file fd: what is buffered first,
// then the bytes with sendfile(2), waiting in the netpoller whenever the
// socket is full. A deadline (the context's end poisons it) or a closed
// connection ends it with an error, as it does a write.
func (s *fileSender) WriteFile(fd int, off int64, n int) (int, error) {
	if s.bw.Buffered() > 0 {
		if err := s.bw.Flush(); err != nil {
			return 0, err
		}
	}
	s.src, s.off, s.n, s.err = fd, off, n, nil
	err := s.rc.Write(s.fn)
	sent := n - s.n
	s.sentBytes.Add(uint64(sent))
	if err == nil {
		err = s.err
	}
	return sent, err
}

func (s *fileSender) send(sock uintptr) bool {
	for s.n > 0 {
		m, err := unix.Sendfile(int(sock), s.src, &s.off, s.n)
		if m > 0 {
			s.n -= m // sendfile moved s.off on
		}
		switch {
		case err == unix.EINTR:
		case err == unix.EAGAIN:
			return false // the socket is full: wait until it is writable
		case err != nil:
			s.err = os.NewSyscallError("sendfile", err)
			return true
		case m == 0: // past the file's end: a piece the block does not hold
			s.err = io.ErrUnexpectedEOF
			return true
		}
	}
	return true
}
