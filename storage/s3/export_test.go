package s3

import (
	"context"
	"errors"
	"net"
	"syscall"
	"time"
)

// RedirectDials makes s dial addr whatever host a request names, so tests
// can use virtual-host names that do not resolve.
func RedirectDials(s *Store, addr string) { dialerOf(s).redirect = addr }

// SetResolver makes s resolve host names with r.
func SetResolver(s *Store, r *net.Resolver) { dialerOf(s).net.Resolver = r }

// Waiters is how many requests wait for one of s's connections (the
// direct client's queue under MaxConnsPerHost); -1 for the net/http
// client, whose queue is its own.
func Waiters(s *Store) int {
	t, ok := s.transport.(*directTransport)
	if !ok {
		return -1
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.waiters)
}

func dialerOf(s *Store) *connDialer {
	switch t := s.transport.(type) {
	case *directTransport:
		return t.dialer
	case *stdTransport:
		return t.dialer
	}
	panic("unknown transport")
}

// SetSocketBuffer sets a socket's SO_SNDBUF or SO_RCVBUF (opt) to n bytes.
func SetSocketBuffer(fd uintptr, opt, n int) error { return setSocketBuffer(fd, opt, n) }

// SetSendBuffer gives s's new connections a socket send buffer of n
// bytes, so a test's large body waits for its server to read it.
func SetSendBuffer(s *Store, n int) {
	dialerOf(s).net.Control = func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) { serr = setSocketBuffer(fd, syscall.SO_SNDBUF, n) })
		return errors.Join(err, serr)
	}
}

// PresignAt presigns as if now were at.
func PresignAt(s *Store, key string, expiry time.Duration, at time.Time) (string, error) {
	return s.presignAt(context.Background(), key, expiry, at)
}

// FileBytes is how many body bytes s sent with sendfile(2).
func FileBytes(s *Store) uint64 { return s.counts.fileBytes.Load() }

// SetSendfileMin makes s's direct transport send bodies of n bytes and
// more with sendfile(2), so tests need not send the default's 32 MiB.
func SetSendfileMin(s *Store, n int64) {
	if t, ok := s.transport.(*directTransport); ok {
		t.fileMin = n
	}
}
