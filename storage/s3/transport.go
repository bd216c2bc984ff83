package s3

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"
)

const (
	minIdleConns = 64
	// net/http's Transport buffers: larger than its 4 KiB default so big
	// objects move in fewer syscalls.
	connBufSize = 64 << 10
	// The direct transport's read and write buffers, pooled and held by a
	// connection only while it moves bytes (directbuf.go). A small
	// object's whole request or response fits, so a 4 KiB PUT is one
	// write and a 4 KiB GET's answer (MinIO's head is ~570 bytes) one
	// read: with 4 KiB it took two of each, as many syscalls again as the
	// hand-written loop of bench/floor. Larger bodies bypass them (large
	// reads and writes go straight to the socket).
	directBufSize = 16 << 10
	// lazyReadConns is the expected concurrency from which the direct
	// transport waits for responses holding no read buffer.
	lazyReadConns = 256
	// apartConns is the expected concurrency from which the direct
	// transport sends plain GETs apart (directsplit.go): the waiting
	// workers' stacks halve, for two handoffs to a runner goroutine and
	// back per GET, about 5% more client CPU per op at 1,000 workers.
	apartConns = 2048
	// asideDials is how many connections the many-workers transport dials
	// at once: enough to open 10,000 in well under a second on loopback,
	// and a listen backlog (often 4,096) is not flooded.
	asideDials = 64
)

// newDialer builds the connection opener both HTTP clients share.
func newDialer(c Config, ca caBundle, ep *url.URL, counts *connCounts) *connDialer {
	d := &connDialer{net: net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}, counts: counts}
	if ep.Scheme == "https" {
		d.tls = &tls.Config{
			MinVersion:         tls.VersionTLS12,
			InsecureSkipVerify: c.Insecure, //nolint:gosec // the user asked for it
			RootCAs:            ca.pool,
			ServerName:         ep.Hostname(),
			NextProtos:         []string{"http/1.1"},
		}
		if !c.NoTLSResumption {
			d.tls.ClientSessionCache = tls.NewLRUClientSessionCache(0)
		}
	}
	return d
}

// newTransport builds the Store's own net/http transport: S3 speaks
// HTTP/1.1, one request per connection at a time, so the idle pool must
// hold a connection per worker or connections churn and the endpoint's
// accept path gets measured instead of its object path.
func newTransport(c Config, ca caBundle, d *connDialer) *stdTransport {
	idle := max(c.MaxConns, minIdleConns)
	st := &stdTransport{dialer: d, counts: d.counts, epoch: time.Now()}
	tr := &http.Transport{
		// Proxies are honoured as the aws CLI does; loopback never is.
		Proxy: http.ProxyFromEnvironment,
		// Plain connections, and the way to a proxy.
		DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) {
			conn, setup, err := d.dial(ctx, addr, nil)
			if err == nil {
				st.noteSetup(conn, setup)
			}
			return conn, err
		},
		MaxIdleConns:        idle,
		MaxIdleConnsPerHost: idle,
		MaxConnsPerHost:     c.MaxConnsPerHost,
		DisableKeepAlives:   c.NoKeepAlive,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: tlsHandshakeTimeout,
		// Objects are mostly incompressible and sizes must be exact.
		DisableCompression:    true,
		ResponseHeaderTimeout: c.Timeout,
		WriteBufferSize:       connBufSize,
		ReadBufferSize:        connBufSize,
	}
	if d.tls != nil {
		// Direct https connections are opened (and their handshakes timed)
		// by the shared dialer; through a proxy net/http does the TLS.
		tr.DialTLSContext = func(ctx context.Context, _, addr string) (net.Conn, error) {
			conn, setup, err := d.dial(ctx, addr, d.tls)
			if err == nil {
				st.noteSetup(conn, setup)
			}
			return conn, err
		}
	}
	// HTTP/1.1 only, stated rather than left to net/http's heuristics: S3
	// endpoints speak it, and connection counts then mean one request in
	// flight per connection.
	tr.Protocols = new(http.Protocols)
	tr.Protocols.SetHTTP1(true)
	if c.Insecure || ca.pool != nil {
		tr.TLSClientConfig = &tls.Config{
			MinVersion:         tls.VersionTLS12,
			InsecureSkipVerify: c.Insecure, //nolint:gosec // the user asked for it
			RootCAs:            ca.pool,
		}
	}
	st.Transport = tr
	return st
}

// chooseTransport builds the transport c.HTTPClient names, falling back to
// net/http's when the environment routes the endpoint through a proxy.
func chooseTransport(c Config, ca caBundle, ep *url.URL, counts *connCounts) (roundTripper, string, error) {
	d := newDialer(c, ca, ep, counts)
	switch c.HTTPClient {
	case "", "direct":
	case "std":
		return newTransport(c, ca, d), "std", nil
	default:
		return nil, "", fmt.Errorf("s3: unknown HTTP client %q (want direct or std)", c.HTTPClient)
	}
	if proxy, err := http.ProxyFromEnvironment(&http.Request{URL: ep}); err != nil || proxy != nil {
		return newTransport(c, ca, d), "std", nil
	}
	t := &directTransport{
		addr:          hostPort(ep),
		dialer:        d,
		counts:        counts,
		headerTimeout: c.Timeout,
		maxIdle:       max(c.MaxConns, minIdleConns),
		limit:         c.MaxConnsPerHost,
		noKeepAlive:   c.NoKeepAlive,
		lazyRead:      c.MaxConns >= lazyReadConns,
		apart:         c.MaxConns >= apartConns,
		fileMin:       sendfileMin,
	}
	if t.lazyRead {
		t.dials = make(chan struct{}, asideDials)
		t.heads = make(chan struct{}, headReaders)
	}
	return t, "direct", nil
}

func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	if u.Scheme == "https" {
		return net.JoinHostPort(u.Hostname(), "443")
	}
	return net.JoinHostPort(u.Hostname(), "80")
}
