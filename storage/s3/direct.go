package s3

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// roundTripper is what the Store sends requests through: the direct
// transport below, or net/http's.
type roundTripper interface {
	RoundTrip(*http.Request) (*http.Response, error)
	CloseIdleConnections()
}

// directTransport sends HTTP/1.1 requests on the calling goroutine: it
// writes the request and parses the response itself (with net/http's own
// writer and parser) on a pooled connection. net/http's Transport instead
// hands every request to two goroutines per connection; on a 2-core machine
// beside a local server those handoffs cost about as much client CPU as the
// request itself (docs/design-notes.md has the measurement;
// bench/floor-minio.sh reproduces it).
type directTransport struct {
	addr          string      // host:port
	tls           *tls.Config // nil for plain http
	dialer        net.Dialer
	counts        *connCounts
	headerTimeout time.Duration
	maxIdle       int
	// lazyRead waits for a response without holding a read buffer, at
	// the cost of a peek per request: worth it with many workers in
	// flight (memory), not with few (CPU per op).
	lazyRead bool

	mu   sync.Mutex
	idle []*directConn // a stack: the most recently used connection first
}

// idleLimit drops connections idle this long: servers close idle
// connections on their own schedule, and a request on such a connection
// fails.
const idleLimit = 15 * time.Second

type directConn struct {
	nc       net.Conn
	rc       syscall.RawConn // nil: TLS, wait with the read buffer taken
	br       *bufio.Reader   // from the pool while a response is read; nil when idle
	lastUsed time.Time
}

var aLongTimeAgo = time.Unix(1, 0)

// RoundTrip implements http.RoundTripper. A request that fails on a reused
// connection before any response byte arrived is sent once more on a new
// connection if its body can be replayed (the server may have closed the
// idle connection just then).
func (t *directTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		if err := req.Context().Err(); err != nil { // never send what is already cancelled
			return nil, err
		}
		c, reused, err := t.get(req.Context())
		if err != nil {
			return nil, err
		}
		resp, started, err := t.exchange(c, req)
		if err == nil {
			return resp, nil
		}
		c.nc.Close()
		if !reused || started || attempt > 0 || !rewind(req) {
			return nil, err
		}
	}
}

// rewind prepares req's body to be sent again, if it can be.
func rewind(req *http.Request) bool {
	if req.Body == nil || req.Body == http.NoBody {
		return true
	}
	if req.GetBody == nil {
		return false
	}
	body, err := req.GetBody()
	if err != nil {
		return false
	}
	req.Body = body
	return true
}

// get returns an idle connection, or dials one.
func (t *directTransport) get(ctx context.Context) (c *directConn, reused bool, err error) {
	now := time.Now()
	t.mu.Lock()
	for n := len(t.idle); n > 0; n = len(t.idle) {
		c = t.idle[n-1]
		t.idle = t.idle[:n-1]
		if now.Sub(c.lastUsed) < idleLimit {
			t.mu.Unlock()
			return c, true, nil
		}
		c.nc.Close()
	}
	t.mu.Unlock()
	nc, err := t.dialer.DialContext(ctx, "tcp", t.addr)
	if err != nil {
		return nil, false, err
	}
	t.counts.dialed.Add(1)
	if t.tls != nil {
		tc := tls.Client(nc, t.tls)
		if err := tc.HandshakeContext(ctx); err != nil {
			nc.Close()
			return nil, false, err
		}
		nc = tc
	}
	c = &directConn{nc: nc}
	if t.lazyRead {
		c.rc = rawConn(nc)
	}
	return c, false, nil
}

func (t *directTransport) put(c *directConn) {
	c.lastUsed = time.Now()
	t.mu.Lock()
	if len(t.idle) < t.maxIdle {
		t.idle = append(t.idle, c)
		c = nil
	}
	t.mu.Unlock()
	if c != nil {
		c.nc.Close()
	}
}

// CloseIdleConnections closes every pooled connection.
func (t *directTransport) CloseIdleConnections() {
	t.mu.Lock()
	idle := t.idle
	t.idle = nil
	t.mu.Unlock()
	for _, c := range idle {
		c.nc.Close()
	}
}

// exchange writes req on c and reads the response head. started reports
// whether any response byte arrived (then a retry is not safe).
func (t *directTransport) exchange(c *directConn, req *http.Request) (resp *http.Response, started bool, err error) {
	ctx := req.Context()
	deadline, _ := ctx.Deadline() // zero: none
	if err := c.nc.SetDeadline(deadline); err != nil {
		return nil, false, err
	}
	stop := context.AfterFunc(ctx, func() { _ = c.nc.SetDeadline(aLongTimeAgo) })
	fail := func(err error) (*http.Response, bool, error) {
		stop()
		if c.br != nil { // the connection is given up: its buffer goes back
			putReader(c.br)
			c.br = nil
		}
		if ctx.Err() != nil {
			err = ctx.Err() // the deadline we set is the context's doing
		}
		return nil, started, err
	}
	bw := getWriter(c.nc)
	err = writeRequest(bw, req)
	putWriter(bw) // flushed, or the connection is given up
	if err != nil {
		return fail(err)
	}
	if t.headerTimeout > 0 {
		if err := c.nc.SetReadDeadline(time.Now().Add(t.headerTimeout)); err != nil {
			return fail(err)
		}
		if ctx.Err() != nil { // a cancel just before would have been overwritten
			return fail(ctx.Err())
		}
	}
	if c.rc != nil {
		if err := awaitReadable(c.rc); err != nil {
			return fail(err)
		}
	}
	c.br = getReader(c.nc)
	if _, err := c.br.Peek(1); err != nil {
		return fail(err)
	}
	started = true
	resp, err = http.ReadResponse(c.br, req)
	if err != nil {
		return fail(err)
	}
	if t.headerTimeout > 0 {
		_ = c.nc.SetReadDeadline(deadline)
		if ctx.Err() != nil { // as above: the cancel must win over our reset
			_ = c.nc.SetDeadline(aLongTimeAgo)
		}
	}
	keep := !resp.Close && !req.Close
	resp.Body = &directBody{rc: resp.Body, t: t, c: c, stop: stop, keep: keep, empty: resp.Body == http.NoBody}
	return resp, true, nil
}

// directBody hands the connection back to the pool once the body has been
// read to its end, or closes it if the body is abandoned part-way.
type directBody struct {
	rc    io.ReadCloser
	t     *directTransport
	c     *directConn
	stop  func() bool
	keep  bool
	empty bool
	done  bool
}

func (b *directBody) Read(p []byte) (int, error) {
	if b.done {
		return 0, io.EOF
	}
	n, err := b.rc.Read(p)
	if err == io.EOF {
		b.finish(true)
	} else if err != nil {
		b.finish(false)
	}
	return n, err
}

func (b *directBody) Close() error {
	if !b.done {
		b.finish(b.empty)
	}
	return nil
}

// finish releases the connection: back to the pool when the body ended
// cleanly and both sides keep the connection alive, else closed.
func (b *directBody) finish(clean bool) {
	b.done = true
	if !b.stop() { // the context already fired: the deadline is poisoned
		clean = false
	}
	c := b.c
	if c.br != nil && c.br.Buffered() > 0 {
		clean = false // bytes past the response: the connection cannot be trusted
	}
	if c.br != nil {
		putReader(c.br)
		c.br = nil
	}
	if clean && b.keep {
		if err := c.nc.SetDeadline(time.Time{}); err == nil {
			b.t.put(c)
			return
		}
	}
	c.nc.Close()
}

// writeRequest writes req as HTTP/1.1 and flushes. The body goes through
// its WriterTo when it has one (the payload generator does), straight into
// the connection's buffer: no intermediate copy buffer per request, which
// net/http's request writer allocates.
func writeRequest(w *bufio.Writer, req *http.Request) error {
	w.WriteString(req.Method)
	w.WriteByte(' ')
	w.WriteString(req.URL.EscapedPath())
	if req.URL.RawQuery != "" {
		w.WriteByte('?')
		w.WriteString(req.URL.RawQuery)
	}
	w.WriteString(" HTTP/1.1\r\nHost: ")
	if req.Host != "" {
		w.WriteString(req.Host)
	} else {
		w.WriteString(req.URL.Host)
	}
	w.WriteString("\r\nUser-Agent: objbench\r\n")
	for k, vs := range req.Header {
		for _, v := range vs {
			w.WriteString(k)
			w.WriteString(": ")
			w.WriteString(v)
			w.WriteString("\r\n")
		}
	}
	hasBody := req.Body != nil && req.Body != http.NoBody
	if hasBody || req.ContentLength > 0 || req.Method == http.MethodPut || req.Method == http.MethodPost {
		var nb [20]byte
		w.WriteString("Content-Length: ")
		w.Write(strconv.AppendInt(nb[:0], req.ContentLength, 10))
		w.WriteString("\r\n")
	}
	w.WriteString("\r\n")
	if hasBody {
		var n int64
		var err error
		if wt, ok := req.Body.(io.WriterTo); ok { // a LimitReader would hide it
			n, err = wt.WriteTo(w)
		} else {
			n, err = io.CopyN(w, req.Body, req.ContentLength)
		}
		if err != nil {
			return err
		}
		if n != req.ContentLength {
			return fmt.Errorf("s3: request body ended after %d of %d bytes", n, req.ContentLength)
		}
	}
	return w.Flush()
}
