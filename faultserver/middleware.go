package faultserver

import (
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/objbench/objbench/internal/s3error"
)

// middleware applies a drawn plan to each request before and while the
// S3 handler serves it, and records the event.
type middleware struct {
	s    *Server
	next http.Handler
}

func (m *middleware) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s := m.s
	ev := Event{Method: r.Method, Start: time.Now()}
	p := s.draw(r.Method)
	ctx := r.Context()
	if st := s.cfg.Stall; st.Method == "" || st.Method == r.Method {
		if end := st.stallEnd(ev.Start.Sub(p.origin)); end > 0 {
			ev.Stall = p.origin.Add(end).Sub(ev.Start)
			hold(ctx, ev.Stall)
		}
	}
	ev.Delay = p.delay
	hold(ctx, p.delay)
	body := &countingBody{rc: r.Body}
	r.Body = body
	if s.revoked.Load() { // the keys were revoked (Server.Revoke): S3 refuses them
		_, _ = io.Copy(io.Discard, body)
		writeS3Error(w, r, http.StatusForbidden, "InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.")
		ev.Status, ev.End = http.StatusForbidden, time.Now()
		s.record(ev)
		return
	}
	if p.fault == SlowDown {
		_, _ = io.Copy(io.Discard, body)
		writeSlowDown(w, r)
		ev.Fault, ev.Status, ev.End = SlowDown, http.StatusServiceUnavailable, time.Now()
		s.record(ev)
		return
	}
	fw := &faultWriter{w: w, plan: p, get: r.Method == http.MethodGet, slow: s.cfg.SlowBody, ctx: ctx}
	m.next.ServeHTTP(fw, r)
	ev.Status, ev.Fault = fw.status, fw.applied
	if ev.Status == 0 {
		ev.Status = http.StatusOK
	}
	if ev.Status/100 == 2 && ev.Fault == None {
		switch r.Method {
		case http.MethodPut:
			ev.Bytes = body.n
		case http.MethodGet:
			ev.Bytes = fw.off
		}
	}
	ev.End = time.Now()
	s.record(ev)
}

// hold waits d, or until the request is gone.
func hold(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

type countingBody struct {
	rc io.ReadCloser
	n  int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.n += int64(n)
	return n, err
}

func (b *countingBody) Close() error { return b.rc.Close() }

func writeSlowDown(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Retry-After", "1")
	writeS3Error(w, r, http.StatusServiceUnavailable, "SlowDown", "Please reduce your request rate.")
}

// writeS3Error answers r in S3's XML error format.
func writeS3Error(w http.ResponseWriter, r *http.Request, status int, code, msg string) {
	s3error.Write(w, r, status, s3error.Body{Code: code, Message: msg, Resource: r.URL.Path})
}

// faultWriter carries out a body fault on a successful GET: it flips one
// byte, or cuts the body at a point and then closes (truncate) or resets
// (reset) the connection. It also paces slow bodies.
type faultWriter struct {
	w       http.ResponseWriter
	ctx     context.Context
	plan    plan
	get     bool
	slow    int64
	status  int
	applied Fault
	at      int64 // the byte a fault strikes
	off     int64 // body bytes written
	cut     bool  // the connection is gone: swallow the rest
	scratch []byte
}

func (f *faultWriter) Header() http.Header { return f.w.Header() }

func (f *faultWriter) WriteHeader(code int) {
	if f.status != 0 {
		return
	}
	f.status = code
	if f.get && code == http.StatusOK && f.plan.fault != None {
		n, err := strconv.ParseInt(f.w.Header().Get("Content-Length"), 10, 64)
		if err == nil && n > 0 {
			f.applied = f.plan.fault
			f.at = min(int64(f.plan.at*float64(n)), n-1)
		}
	}
	f.w.WriteHeader(code)
}

func (f *faultWriter) Write(p []byte) (int, error) {
	if f.status == 0 {
		f.WriteHeader(http.StatusOK)
	}
	if f.cut {
		return len(p), nil
	}
	n := len(p)
	switch f.applied {
	case Corrupt:
		if i := f.at - f.off; i >= 0 && i < int64(len(p)) {
			f.scratch = append(f.scratch[:0], p...)
			f.scratch[i] ^= 0xff
			p = f.scratch
		}
	case Truncate, Reset:
		if f.off+int64(len(p)) > f.at {
			if err := f.write(p[:f.at-f.off]); err != nil {
				return 0, err
			}
			f.cutConnection()
			return n, nil
		}
	}
	if err := f.write(p); err != nil {
		return 0, err
	}
	return n, nil
}

// write sends p, in paced chunks when the body is slow.
func (f *faultWriter) write(p []byte) error {
	if f.slow <= 0 {
		n, err := f.w.Write(p)
		f.off += int64(n)
		return err
	}
	chunk := max(int(f.slow/100), 1) // ~10 ms of data per write
	rc := http.NewResponseController(f.w)
	for len(p) > 0 {
		c := p[:min(chunk, len(p))]
		n, err := f.w.Write(c)
		f.off += int64(n)
		if err != nil {
			return err
		}
		_ = rc.Flush()
		hold(f.ctx, time.Duration(float64(n)/float64(f.slow)*float64(time.Second)))
		if f.ctx.Err() != nil {
			return f.ctx.Err()
		}
		p = p[n:]
	}
	return nil
}

// cutConnection sends what was written, then closes the connection: with
// a reset (RST, linger 0) or a plain close (the body ends short).
func (f *faultWriter) cutConnection() {
	f.cut = true
	rc := http.NewResponseController(f.w)
	_ = rc.Flush()
	conn, _, err := rc.Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok && f.applied == Reset {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

func (f *faultWriter) Flush() {
	if !f.cut {
		_ = http.NewResponseController(f.w).Flush()
	}
}

// dropListPrefix makes a ListObjectsV2 request list the whole bucket,
// whatever prefix it asks for, as some gateways do (Config.IgnoreListPrefix).
func dropListPrefix(r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Query().Has("list-type") {
		q := r.URL.Query()
		q.Del("prefix")
		r.URL.RawQuery = q.Encode()
	}
}
