package s3

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"

	"github.com/objbench/objbench/storage"
)

// roundTripper is what the Store sends requests through: the direct
// transport below, or net/http's (stdTransport). Both fill tr's phases
// (tr may be nil) and count connections.
type roundTripper interface {
	roundTrip(req *http.Request, tr *storage.Trace) (*http.Response, error)
	CloseIdleConnections()
}

// directTransport sends HTTP/1.1 requests on the calling goroutine: it
// writes the request and parses the response itself (with net/http's own
// writer and parser) on a pooled connection. net/http's Transport instead
// hands every request to two goroutines per connection; on a 2-core machine
// beside a local server those handoffs cost about as much client CPU as the
// request itself (docs/design/001-s3-request-path.md has the measurement;
// bench/floor-minio.sh reproduces it).
type directTransport struct {
	addr          string // host:port
	dialer        *connDialer
	counts        *connCounts
	headerTimeout time.Duration
	maxIdle       int
	// limit caps the connections open at once, idle or busy (0: none);
	// open counts them only when there is a limit.
	limit int
	// noKeepAlive closes every connection after its request.
	noKeepAlive bool
	// lazyRead waits for a response without holding a read buffer, at
	// the cost of a peek per request: worth it with many workers in
	// flight (memory), not with few (CPU per op).
	lazyRead bool
	// apart, with lazyRead, lets StartGet send plain GETs apart
	// (directsplit.go): with thousands of workers.
	apart bool
	// dials, with lazyRead, bounds the dials in flight, each on a
	// goroutine of its own (dialAside); nil: dial on the caller's.
	dials chan struct{}
	// heads, with lazyRead, bounds the response heads parsed at once
	// (directhead.go).
	heads chan struct{}
	// fileMin is the smallest body sent with sendfile(2) (sendfileMin).
	fileMin int64

	mu      sync.Mutex
	idle    []*directConn // a stack: the most recently used connection first
	open    int
	waiters []chan *directConn // first come first served; nil handed over = dial under the limit
}

// idleLimit drops connections idle this long: servers close idle
// connections on their own schedule, and a request on such a connection
// fails.
const idleLimit = 15 * time.Second

type directConn struct {
	nc       net.Conn
	rc       syscall.RawConn // nil: TLS, wait with the read buffer taken
	br       *bufio.Reader   // from the pool while a response is read; nil when idle
	raw      rawReader       // what br reads from when rc is set
	lastUsed time.Time
	w        connWatch  // the request context's end interrupts I/O (directwatch.go)
	pend     pendingGet // its GET sent by StartGet (directsplit.go)
	// fs sends large bodies' payload pieces with sendfile(2), made at
	// the first one; noFiles: c cannot (TLS).
	fs      *fileSender
	noFiles bool
}

// sendfileMin is the smallest body the direct transport sends from files
// by default (directTransport.fileMin). Measured against MinIO on
// loopback (docs/design/003-large-puts-sendfile.md): sendfile(2) from the
// block's memfd costs the client more CPU than write(2) for bodies of 64
// KiB to 16 MiB, and about the same or less from 32 MiB.
const sendfileMin = 32 << 20

// bodyWriter is what req's body is written into after its head in bw:
// c's file sender when the body is at least t.fileMin bytes and c is
// plain TCP (a payload Reader then hands it pieces of its block's memfd;
// any other body just writes through it into bw), else bw itself.
func (t *directTransport) bodyWriter(c *directConn, bw *bufio.Writer, req *http.Request) io.Writer {
	if req.ContentLength < t.fileMin || c.noFiles {
		return bw
	}
	if c.fs == nil {
		if c.fs = newFileSender(c.nc, &t.counts.fileBytes); c.fs == nil {
			c.noFiles = true
			return bw
		}
	}
	c.fs.bw = bw
	return c.fs
}

// roundTrip sends req and returns the response with its head read. A
// request that fails on a reused connection before any response byte
// arrived is sent once more on a new connection if its body can be
// replayed (the server may have closed the idle connection just then).
func (t *directTransport) roundTrip(req *http.Request, tr *storage.Trace) (*http.Response, error) {
	return t.attempt(req, tr, 0)
}

// attempt is roundTrip from its attempt-th attempt (0: the first).
func (t *directTransport) attempt(req *http.Request, tr *storage.Trace, attempt int) (*http.Response, error) {
	var scratch storage.Phases
	ph := &scratch
	if tr != nil {
		ph = &tr.Phases
	}
	for ; ; attempt++ {
		if err := req.Context().Err(); err != nil { // never send what is already cancelled
			return nil, err
		}
		c, reused, err := t.get(req.Context(), ph)
		if err != nil {
			return nil, err
		}
		resp, started, err := t.exchange(c, req, tr, ph)
		if err == nil {
			return resp, nil
		}
		t.discard(c)
		if req.Context().Err() != nil || !reused || started || attempt > 0 || !rewind(req) {
			return nil, err // a request its context cut is not a stale connection
		}
		t.counts.serverClosed.Add(1) // the pooled connection had been closed under us
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

// exchange writes req on c and reads the response head, timing the send
// and the wait into ph (and the first byte into tr). started reports
// whether any response byte arrived (then a retry is not safe).
func (t *directTransport) exchange(c *directConn, req *http.Request, tr *storage.Trace, ph *storage.Phases) (resp *http.Response, started bool, err error) {
	sent, deadline, err := t.write(c, req, ph)
	if err != nil {
		return nil, false, t.failed(c, req, err)
	}
	return t.receive(c, req, tr, ph, sent, deadline, false)
}

// write sends req on c: the context's watch and deadline set, the request
// written and flushed, the header timeout started. It returns when the
// request went out and the deadline to restore once the head is in.
func (t *directTransport) write(c *directConn, req *http.Request, ph *storage.Phases) (sent, deadline time.Time, err error) {
	ctx := req.Context()
	if t.noKeepAlive {
		req.Close = true // writeRequest says so to the server
	}
	c.watch(ctx)                 // before the deadline is set: a watch that fired earlier poisoned it
	deadline, _ = ctx.Deadline() // zero: none
	if err := c.nc.SetDeadline(deadline); err != nil {
		return sent, deadline, err
	}
	if ctx.Err() != nil { // ended before the deadline was set: the watch's poison was overwritten
		return sent, deadline, ctx.Err()
	}
	sendStart := time.Now()
	bw := getWriter(c.nc)
	err = writeRequest(bw, t.bodyWriter(c, bw, req), req)
	if c.fs != nil {
		c.fs.bw = nil
	}
	putWriter(bw) // flushed, or the connection is given up
	if err != nil {
		return sent, deadline, err
	}
	sent = time.Now()
	ph.Send = sent.Sub(sendStart)
	if t.headerTimeout > 0 {
		if err := c.nc.SetReadDeadline(sent.Add(t.headerTimeout)); err != nil {
			return sent, deadline, err
		}
		if ctx.Err() != nil { // a cancel just before would have been overwritten
			return sent, deadline, ctx.Err()
		}
	}
	return sent, deadline, nil
}

// receive reads the head of the answer to req, sent on c at sent, and
// wraps its body; awaited says the answer is known to be readable.
func (t *directTransport) receive(c *directConn, req *http.Request, tr *storage.Trace, ph *storage.Phases, sent, deadline time.Time, awaited bool) (resp *http.Response, started bool, err error) {
	ctx := req.Context()
	resp, started, err = t.readHead(c, req, tr, ph, sent, awaited)
	if err != nil {
		return nil, started, t.failed(c, req, err)
	}
	if t.headerTimeout > 0 {
		_ = c.nc.SetReadDeadline(deadline)
		if ctx.Err() != nil { // as above: the cancel must win over our reset
			_ = c.nc.SetDeadline(aLongTimeAgo)
		}
	}
	if resp.Close && !req.Close {
		t.counts.serverClosed.Add(1)
	}
	keep := !resp.Close && !req.Close
	resp.Body = &directBody{ctx: ctx, rc: resp.Body, t: t, c: c, keep: keep, empty: resp.Body == http.NoBody}
	return resp, true, nil
}

// failed gives up c's read buffer after a failed exchange and says why
// it failed: the context's end when it ended (the deadline we set is its
// doing).
func (t *directTransport) failed(c *directConn, req *http.Request, err error) error {
	if c.br != nil {
		putReader(c.br)
		c.br = nil
	}
	if cerr := req.Context().Err(); cerr != nil {
		return cerr
	}
	return err
}
