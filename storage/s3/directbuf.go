package s3

import (
	"bufio"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
)

// A connection holds read and write buffers only while it moves bytes: a
// worker waiting for a slow store's answer (thousands of them, 100 ms
// each, against a cloud store) holds none. The buffers come from pools.
var (
	readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, directBufSize) }}
	writers = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, directBufSize) }}
)

func getReader(c io.Reader) *bufio.Reader {
	br := readers.Get().(*bufio.Reader)
	br.Reset(c)
	return br
}

func putReader(br *bufio.Reader) {
	br.Reset(nil)
	readers.Put(br)
}

func getWriter(c net.Conn) *bufio.Writer {
	bw := writers.Get().(*bufio.Writer)
	bw.Reset(c)
	return bw
}

func putWriter(bw *bufio.Writer) {
	bw.Reset(nil)
	writers.Put(bw)
}

// awaitReadable blocks until the socket has bytes to read, or has ended
// (or its deadline passes), consuming none: it peeks one byte without
// waiting, and only if none is there does the netpoller park the
// goroutine, as a blocking read would. The read buffer is taken only then.
// (Waiting for an edge without peeking first can miss data that came
// before the wait.) Woken, it trusts the edge rather than peeking again:
// with many workers in flight almost every answer is waited for, and the
// second peek was a third syscall per response (12% of client CPU at
// 1,000 workers, every answer held 100 ms). A spurious wake costs nothing
// wrong: the read that follows gets EAGAIN and waits in the netpoller as
// any read does.
func (r *rawReader) awaitReadable() error {
	r.waited = false
	return r.rc.Read(r.peekFn)
}

// rawReader reads a plain TCP socket with a raw read(2), which does not
// tell the scheduler it entered a system call, waiting for data in the
// netpoller as net.Conn does. The socket is non-blocking, so the read
// never blocks. Why: the read buffer is taken just before the read, and a
// goroutine returning from an ordinary system call on a busy machine finds
// its P given away and queues behind every runnable worker, buffer in
// hand; 10,000 workers held 5,000 read buffers (21 MB) at once that way.
// The functions RawConn.Read calls are made once per connection (init):
// closures made per call were two allocations per response.
type rawReader struct {
	rc             syscall.RawConn
	p              []byte // the read's
	n              int
	errno          syscall.Errno
	waited         bool
	one            [1]byte
	readFn, peekFn func(fd uintptr) bool
}

// init binds r to rc; r must not move afterwards (it lives in its
// directConn).
func (r *rawReader) init(rc syscall.RawConn) {
	r.rc = rc
	r.readFn, r.peekFn = r.read, r.peek
}

func (r *rawReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r.p, r.n, r.errno = p, 0, 0
	err := r.rc.Read(r.readFn)
	n, errno := r.n, r.errno
	r.p = nil
	switch {
	case err != nil: // a deadline, or the connection closed under us
		return 0, err
	case errno != 0:
		return 0, os.NewSyscallError("read", errno)
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}
