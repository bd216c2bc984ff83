package s3

import (
	"context"
	"net"
	"net/http"
	"net/http/httptrace"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/objbench/objbench/storage"
)

// stdTransport is net/http's Transport with the request phases and
// connection counts the direct transport records, taken from
// net/http/httptrace hooks. The hooks are bound once to a pooled recorder
// and its traced context is kept for the next request with the same
// parent context (a worker's), so tracing allocates nothing per request
// in steady state.
type stdTransport struct {
	*http.Transport
	dialer *connDialer
	counts *connCounts
	epoch  time.Time // hooks on other goroutines store instants as offsets from it
	recs   sync.Pool // *stdRecorder

	mu sync.Mutex
	// setups holds each new connection's setup times until the request
	// that takes it claims them.
	setups map[net.Conn]connSetup
}

// maxSetups bounds setups: entries of connections no request took (a dial
// that lost the race to an idle connection, then closed) are forgotten.
const maxSetups = 4096

func (t *stdTransport) noteSetup(c net.Conn, s connSetup) {
	t.mu.Lock()
	if t.setups == nil || len(t.setups) >= maxSetups {
		t.setups = make(map[net.Conn]connSetup)
	}
	t.setups[c] = s
	t.mu.Unlock()
}

func (t *stdTransport) claimSetup(c net.Conn) (connSetup, bool) {
	t.mu.Lock()
	s, ok := t.setups[c]
	delete(t.setups, c)
	t.mu.Unlock()
	return s, ok
}

// stdRecorder receives one request's httptrace events at a time.
type stdRecorder struct {
	t      *stdTransport
	hooks  httptrace.ClientTrace
	parent context.Context // the context ctx was derived from
	ctx    context.Context // parent with hooks

	// Set on the caller's goroutine (net/http gets connections there).
	getConn, gotConn time.Time
	gotConns         int
	info             httptrace.GotConnInfo
	// Set on net/http's connection goroutines, possibly after RoundTrip
	// returned: offsets from t.epoch, 0 = not yet.
	wrote, firstByte atomic.Int64
	// written hears WroteRequest: net/http's writer is done with the body.
	written chan struct{}
}

func (t *stdTransport) newRecorder() *stdRecorder {
	r := &stdRecorder{t: t, written: make(chan struct{}, 1)}
	r.hooks = httptrace.ClientTrace{
		GetConn: func(string) { r.getConn = time.Now() },
		GotConn: func(i httptrace.GotConnInfo) {
			r.gotConn, r.info = time.Now(), i
			r.gotConns++
		},
		WroteRequest: func(httptrace.WroteRequestInfo) {
			r.wrote.Store(int64(time.Since(t.epoch)))
			select {
			case r.written <- struct{}{}:
			default:
			}
		},
		GotFirstResponseByte: func() { r.firstByte.Store(int64(time.Since(t.epoch))) },
	}
	return r
}

// recorder returns a recorder whose ctx is parent with its hooks.
func (t *stdTransport) recorder(parent context.Context) (r *stdRecorder, pooled bool) {
	if httptrace.ContextClientTrace(parent) != nil {
		// The caller traces too: httptrace chains the caller's hooks into
		// ours, so this recorder cannot serve another parent.
		r = t.newRecorder()
		r.ctx = httptrace.WithClientTrace(parent, &r.hooks)
		return r, false
	}
	r, _ = t.recs.Get().(*stdRecorder)
	if r == nil {
		r = t.newRecorder()
	}
	if !sameContext(r.parent, parent) {
		r.parent, r.ctx = parent, httptrace.WithClientTrace(parent, &r.hooks)
	}
	r.getConn, r.gotConn, r.gotConns, r.info = time.Time{}, time.Time{}, 0, httptrace.GotConnInfo{}
	r.wrote.Store(0)
	r.firstByte.Store(0)
	select { // a WroteRequest of the recorder's previous request
	case <-r.written:
	default:
	}
	return r, true
}

// sameContext compares without panicking on a context type that is not
// comparable.
func sameContext(a, b context.Context) bool {
	if a == nil || b == nil || !reflect.TypeOf(a).Comparable() || !reflect.TypeOf(b).Comparable() {
		return false
	}
	return a == b
}

func (t *stdTransport) roundTrip(req *http.Request, tr *storage.Trace) (*http.Response, error) {
	r, pooled := t.recorder(req.Context())
	// Replaced in place: a copy of the request would cost an allocation.
	*req = *req.WithContext(r.ctx)
	resp, err := t.Transport.RoundTrip(req)
	r.awaitBody(req)
	if err != nil {
		return nil, err // the recorder may still hear from net/http: not reused
	}
	r.finish(tr)
	if pooled && r.wrote.Load() != 0 {
		t.recs.Put(r)
	}
	return resp, nil
}

// maxBodyWait bounds how long a request's return waits for net/http's
// writer to be done with its body.
const maxBodyWait = time.Second

// awaitBody returns once net/http's writer is done with req's body. The
// response can come before it is (the server answered, the writer still
// reads past the body's length to check it is not longer, or is writing
// what the server did not read), and the caller reuses the reader the
// moment Put returns: a payload reader reset for the next request, whose
// bytes the old writer then took (that request failed with "ContentLength
// 4096 with Body length 0", about 1 PUT in 1,000 with a new connection
// per request). A write that ends in an error says so too; a request that
// got no connection was never handed to a writer.
func (r *stdRecorder) awaitBody(req *http.Request) {
	if req.ContentLength == 0 || req.Body == nil || req.Body == http.NoBody || r.wrote.Load() != 0 || r.gotConns == 0 {
		return // no body, written already, or never handed to a writer (no connection)
	}
	t := time.NewTimer(maxBodyWait)
	defer t.Stop()
	select {
	case <-r.written:
	case <-t.C:
	}
}

// finish counts the request's connection and writes its phases.
func (r *stdRecorder) finish(tr *storage.Trace) {
	t := r.t
	if r.gotConns > 1 {
		t.counts.serverClosed.Add(1) // net/http sent it again: a pooled connection had been closed
	}
	if r.info.Reused {
		t.counts.reused.Add(1)
	}
	var setup connSetup
	claimed := false
	if !r.info.Reused && r.info.Conn != nil {
		setup, claimed = t.claimSetup(r.info.Conn)
		claimed = claimed && !r.info.WasIdle // dialed for another request, idle since: not this one's wait
	}
	if tr == nil {
		return
	}
	ph := &tr.Phases
	if claimed {
		setup.into(ph)
	}
	ph.NewConn = !r.info.Reused
	if r.gotConns > 0 {
		wait := r.gotConn.Sub(r.getConn)
		if claimed {
			wait -= setup.total()
		}
		ph.ConnWait = max(wait, 0)
	}
	wrote, first := r.wrote.Load(), r.firstByte.Load()
	if wrote != 0 && !r.gotConn.IsZero() {
		ph.Send = t.epoch.Add(time.Duration(wrote)).Sub(r.gotConn)
	}
	if first != 0 {
		tr.FirstByte = t.epoch.Add(time.Duration(first))
		if wrote != 0 {
			ph.Wait = max(time.Duration(first-wrote), 0)
		}
	}
}
