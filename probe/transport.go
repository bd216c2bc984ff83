package probe

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/objbench/objbench/storage/s3"
)

func checkServer(ctx context.Context, p *prober) {
	r, err := p.st.Exchange(ctx, http.MethodHead, "", "", nil, nil)
	if err != nil {
		p.add("server", NotChecked, "%v", p.seen(err))
		return
	}
	p.rep.Server = r.Header.Get("Server")
	if p.rep.Server == "" {
		p.add("server", Info, "no Server header")
		return
	}
	p.add("server", Info, "Server: %s", p.rep.Server)
}

// checkAddressing tries the addressing style the probe is not using:
// path style, or bucket.host (virtual-host), which needs a host name.
func checkAddressing(ctx context.Context, p *prober) {
	using := p.st.Options().Addressing
	p.add("addressing."+styleName(using), Yes, "the probe's own requests use it")
	other := "virtual"
	if using == "virtual" {
		other = "path"
	}
	u, err := url.Parse(p.cfg.Endpoint)
	if other == "virtual" && (err != nil || u.Hostname() == "localhost" || net.ParseIP(u.Hostname()) != nil) {
		p.add("addressing.virtual-host", NotChecked, "the endpoint is an IP address or localhost: no host name to put the bucket in")
		return
	}
	c := p.cfg
	c.PathStyle, c.VirtualHost = other == "path", other == "virtual"
	st, err := s3.New(ctx, c)
	if err != nil {
		p.add("addressing."+styleName(other), NotChecked, "%v", err)
		return
	}
	defer st.Close()
	ok, err := st.BucketExists(ctx)
	switch {
	case err != nil:
		p.add("addressing."+styleName(other), No, "%s", refusal(p.seen(err)))
	case !ok:
		p.add("addressing."+styleName(other), No, "the bucket is not found that way")
	default:
		p.add("addressing."+styleName(other), Yes, "the bucket answers that way too")
	}
}

func styleName(addressing string) string {
	if addressing == "virtual" {
		return "virtual-host"
	}
	return "path"
}

// checkTLS asks which TLS versions an https endpoint accepts: one
// handshake per version, the certificate not checked (the probe's own
// requests check it).
func checkTLS(ctx context.Context, p *prober) {
	u, err := url.Parse(p.cfg.Endpoint)
	if err != nil || u.Scheme != "https" {
		p.add("tls", NotChecked, "not an https endpoint")
		return
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "443")
	}
	var ok, refused []string
	for _, v := range []uint16{tls.VersionTLS10, tls.VersionTLS11, tls.VersionTLS12, tls.VersionTLS13} {
		d := tls.Dialer{Config: &tls.Config{MinVersion: v, MaxVersion: v, ServerName: u.Hostname(),
			InsecureSkipVerify: true}} //nolint:gosec // only the protocol version is asked here
		dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		conn, err := d.DialContext(dctx, "tcp", host)
		cancel()
		if err != nil {
			refused = append(refused, tls.VersionName(v))
			continue
		}
		_ = conn.Close()
		ok = append(ok, tls.VersionName(v))
	}
	switch {
	case len(ok) == 0:
		p.add("tls", No, "no TLS version from 1.0 to 1.3 accepted")
	case len(refused) == 0:
		p.add("tls", Yes, "accepts %s", strings.Join(ok, ", "))
	default:
		p.add("tls", Yes, "accepts %s; refuses %s", strings.Join(ok, ", "), strings.Join(refused, ", "))
	}
}

// checkClock compares the store's Date header with this machine's clock.
// The header has whole seconds: a skew under a second is not seen.
func checkClock(ctx context.Context, p *prober) {
	sent, received, server, err := p.st.ServerTime(ctx)
	if err != nil {
		p.add("clock-skew", NotChecked, "%v", p.seen(err))
		return
	}
	mid := sent.Add(received.Sub(sent) / 2)
	skew := server.Sub(mid.Truncate(time.Second))
	switch {
	case skew.Abs() <= time.Second:
		p.add("clock-skew", Info, "within a second (the Date header's resolution)")
	case skew.Abs() > time.Minute:
		p.add("clock-skew", Differs, "the store's clock is %s %s this machine's: requests signed 15 minutes off are refused",
			skew.Abs().Round(time.Second), aheadOrBehind(skew))
	default:
		p.add("clock-skew", Info, "the store's clock is %s %s this machine's", skew.Abs().Round(time.Second), aheadOrBehind(skew))
	}
}

func aheadOrBehind(d time.Duration) string {
	if d > 0 {
		return "ahead of"
	}
	return "behind"
}

func checkThrottling(_ context.Context, p *prober) {
	_, requests := p.st.ConnStats()
	p.mu.Lock()
	n := p.slowDowns
	p.mu.Unlock()
	if n == 0 {
		p.add("throttling", Info, "no 503 (SlowDown) in the probe's %d requests", requests)
		return
	}
	p.add("throttling", Differs, "%d answers 503 (SlowDown) in %d requests: the store throttles at probe rates", n, requests)
}
