package s3server

import (
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
)

// limitListener accepts at most cap(slots) connections at once: past the
// limit, Accept waits for one to close (the kernel's backlog holds the
// rest), and the log says so once each time the limit is reached (again
// only after the connections have fallen below half the limit).
type limitListener struct {
	net.Listener
	slots chan struct{}
	log   *slog.Logger
	full  atomic.Bool // the limit was reached and the count is not yet below half of it
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	default:
		if l.log != nil && !l.full.Swap(true) {
			l.log.Warn("s3server: connection limit reached: new connections wait until one closes",
				slog.Int("max_conns", cap(l.slots)))
		}
		l.slots <- struct{}{}
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitedConn{Conn: c, release: l.release}, nil
}

func (l *limitListener) release() {
	<-l.slots
	if len(l.slots) < cap(l.slots)/2 {
		l.full.Store(false)
	}
}

// limitedConn gives its slot back once, when closed.
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// ReadFrom keeps sendfile(2) and splice(2) for bodies net/http copies from
// a file: it looks for the connection's own ReadFrom.
func (c *limitedConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, r)
}

// CloseWrite half-closes the connection, as net/http does before closing
// one it answered with an error.
func (c *limitedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
