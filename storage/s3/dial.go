package s3

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http/httptrace"
	"sync/atomic"
	"time"

	"github.com/objbench/objbench/storage"
)

// connCounts is shared by a Store and its transport.
type connCounts struct {
	dialed        atomic.Uint64
	requests      atomic.Uint64
	reused        atomic.Uint64
	serverClosed  atomic.Uint64
	tlsHandshakes atomic.Uint64
	tlsResumed    atomic.Uint64
	fileBytes     atomic.Uint64 // body bytes sent with sendfile(2) (fileSender)
}

func (c *connCounts) stats() storage.ConnStats {
	return storage.ConnStats{
		Requests:      c.requests.Load(),
		Opened:        c.dialed.Load(),
		Reused:        c.reused.Load(),
		ServerClosed:  c.serverClosed.Load(),
		TLSHandshakes: c.tlsHandshakes.Load(),
		TLSResumed:    c.tlsResumed.Load(),
	}
}

// connSetup is what opening one connection took.
type connSetup struct {
	dns, connect, tls time.Duration
	resumed           bool
}

func (s connSetup) total() time.Duration { return s.dns + s.connect + s.tls }

// into writes the setup phases of a request that went on this new connection.
func (s connSetup) into(p *storage.Phases) {
	p.DNS, p.Connect, p.TLS, p.TLSResumed, p.NewConn = s.dns, s.connect, s.tls, s.resumed, true
}

// tlsHandshakeTimeout bounds a handshake, as net/http's default does.
const tlsHandshakeTimeout = 10 * time.Second

// connDialer opens connections for both HTTP clients and times their
// setup: name resolution, TCP connect and the TLS handshake. Its cost is
// per connection (a trace context is allocated per dial), never per
// request on a pooled connection.
type connDialer struct {
	net    net.Dialer
	tls    *tls.Config // nil: plain TCP
	counts *connCounts
	// redirect, set by tests only, is dialed whatever address is asked
	// for, so virtual-host names need not resolve.
	redirect string
}

// dial connects to addr, with TLS when conf is not nil.
func (d *connDialer) dial(ctx context.Context, addr string, conf *tls.Config) (net.Conn, connSetup, error) {
	var st connSetup
	var dnsStart, dnsDone time.Time
	tctx := httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		DNSStart: func(httptrace.DNSStartInfo) { dnsStart = time.Now() },
		DNSDone:  func(httptrace.DNSDoneInfo) { dnsDone = time.Now() },
	})
	if d.redirect != "" {
		addr = d.redirect
	}
	start := time.Now()
	nc, err := d.net.DialContext(tctx, "tcp", addr)
	connected := time.Now()
	if err != nil {
		return nil, st, err
	}
	if !dnsDone.IsZero() {
		st.dns = dnsDone.Sub(dnsStart)
		start = dnsDone
	}
	st.connect = connected.Sub(start)
	d.counts.dialed.Add(1)
	if conf == nil {
		return nc, st, nil
	}
	tc := tls.Client(nc, conf)
	hctx, cancel := context.WithTimeout(ctx, tlsHandshakeTimeout)
	err = tc.HandshakeContext(hctx)
	cancel()
	if err != nil {
		nc.Close()
		return nil, st, certError(err)
	}
	st.tls = time.Since(connected)
	st.resumed = tc.ConnectionState().DidResume
	d.counts.tlsHandshakes.Add(1)
	if st.resumed {
		d.counts.tlsResumed.Add(1)
	}
	return tc, st, nil
}

// certError says what to do about a server certificate the client does
// not trust; other handshake errors are returned as they are.
func certError(err error) error {
	var cv *tls.CertificateVerificationError
	if !errors.As(err, &cv) {
		return err
	}
	return fmt.Errorf("%w: %w (trust its CA with a CA bundle: Config.CABundle, AWS_CA_BUNDLE; or skip verification with Insecure)",
		storage.ErrCertificate, cv.Err)
}
