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
	// The direct transport's per-connection buffers: a request head and
	// a response head fit, and bodies bypass them (large reads and writes
	// go straight to the socket), so thousands of connections cost 8 KiB
	// each, not 128 KiB (1,000 workers took 197 MB of RSS with 64 KiB).
	directBufSize = 4 << 10
	// lazyReadConns is the expected concurrency from which the direct
	// transport waits for responses holding no read buffer.
	lazyReadConns = 256
)

// newTransport builds the Store's own transport: S3 speaks HTTP/1.1, one
// request per connection at a time, so the idle pool must hold a connection
// per worker or connections churn and the endpoint's accept path gets
// measured instead of its object path.
func newTransport(c Config, ca caBundle, counts *connCounts) *http.Transport {
	idle := max(c.MaxConns, minIdleConns)
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		// Proxies are honoured as the aws CLI does; loopback never is.
		Proxy: http.ProxyFromEnvironment,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			conn, err := d.DialContext(ctx, network, addr)
			if err == nil {
				counts.dialed.Add(1)
			}
			return conn, err
		},
		MaxIdleConns:        idle,
		MaxIdleConnsPerHost: idle,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
		// Objects are mostly incompressible and sizes must be exact.
		DisableCompression:    true,
		ResponseHeaderTimeout: c.Timeout,
		WriteBufferSize:       connBufSize,
		ReadBufferSize:        connBufSize,
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
	return tr
}

// chooseTransport builds the transport c.HTTPClient names, falling back to
// net/http's when the environment routes the endpoint through a proxy.
func chooseTransport(c Config, ca caBundle, ep *url.URL, counts *connCounts) (roundTripper, string, error) {
	switch c.HTTPClient {
	case "", "direct":
	case "std":
		return newTransport(c, ca, counts), "std", nil
	default:
		return nil, "", fmt.Errorf("s3: unknown HTTP client %q (want direct or std)", c.HTTPClient)
	}
	if proxy, err := http.ProxyFromEnvironment(&http.Request{URL: ep}); err != nil || proxy != nil {
		return newTransport(c, ca, counts), "std", nil
	}
	t := &directTransport{
		addr:          hostPort(ep),
		dialer:        net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second},
		counts:        counts,
		headerTimeout: c.Timeout,
		maxIdle:       max(c.MaxConns, minIdleConns),
		lazyRead:      c.MaxConns >= lazyReadConns,
	}
	if ep.Scheme == "https" {
		t.tls = &tls.Config{
			MinVersion:         tls.VersionTLS12,
			InsecureSkipVerify: c.Insecure, //nolint:gosec // the user asked for it
			RootCAs:            ca.pool,
			ServerName:         ep.Hostname(),
			NextProtos:         []string{"http/1.1"},
		}
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
