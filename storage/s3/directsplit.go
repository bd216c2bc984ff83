package s3

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/objbench/objbench/storage"
)

var _ storage.GetStarter = (*Store)(nil)

// pendingGet is a GET written on its connection whose answer has not been
// read (storage.PendingGet). It lives in the connection (directConn.pend)
// and is reused by its next request: nothing is allocated for it.
type pendingGet struct {
	s        *Store
	t        *directTransport
	c        *directConn // nil: failed before a connection was had
	req      *http.Request
	key      string
	o        storage.GetOptions
	ph       *storage.Phases
	scratch  storage.Phases
	reused   bool
	awaited  bool // the answer is known to be readable
	sent     time.Time
	deadline time.Time
	err      error // the exchange failed before its answer (c is given up)
}

// GetsApart reports whether StartGet sends GETs apart: with the direct
// transport for thousands of workers (apartConns), over plain TCP (TLS's
// own buffer hides what the socket has, so Finish would wait for the
// answer), and no limit on connections (a request sent apart never
// waits for one: see loadgen's runners).
func (s *Store) GetsApart() bool {
	t, ok := s.transport.(*directTransport)
	return ok && t.lazyRead && t.apart && t.limit == 0 && t.dialer.tls == nil
}

// StartGet signs and writes a GET of key and returns before its answer
// arrives (storage.GetStarter): when GetsApart, and not for a GET whose
// body is checked against a checksum (ok=false: use Get).
func (s *Store) StartGet(ctx context.Context, key string, o storage.GetOptions) (storage.PendingGet, bool) {
	if !s.GetsApart() || o.VerifyChecksum {
		return nil, false
	}
	t := s.transport.(*directTransport)
	req, err := s.getRequest(ctx, key, o)
	if err != nil {
		return &pendingGet{err: err}, true // already an OpError
	}
	if err := s.sign(req); err != nil {
		return &pendingGet{err: opError("get", key, err)}, true
	}
	if o.Trace != nil {
		o.Trace.Phases = storage.Phases{}
	}
	s.counts.requests.Add(1)
	var scratch storage.Phases
	ph := &scratch
	if o.Trace != nil {
		ph = &o.Trace.Phases
	}
	if err := ctx.Err(); err != nil { // never send what is already cancelled
		return &pendingGet{err: s.requestError(req, key, err)}, true
	}
	c, reused, err := t.get(ctx, ph)
	if err != nil {
		return &pendingGet{err: s.requestError(req, key, err)}, true
	}
	p := &c.pend
	*p = pendingGet{s: s, t: t, c: c, req: req, key: key, o: o, ph: ph, reused: reused}
	if o.Trace == nil {
		p.ph = &p.scratch
	}
	p.sent, p.deadline, err = t.write(c, req, p.ph)
	if err != nil {
		p.fail(err, false)
	}
	return p, true
}

// Await waits, holding no buffer, until the answer can be read.
func (p *pendingGet) Await() {
	if p.err != nil || p.awaited || p.c.rc == nil { // TLS: Finish waits in its read
		return
	}
	if err := p.c.raw.awaitReadable(); err != nil {
		p.fail(err, false)
		return
	}
	p.awaited = true
}

// fail gives the connection up after a failed exchange; a request that
// got no answer byte on a reused connection is sent again by Finish, as
// roundTrip does (the server may have closed the idle connection).
func (p *pendingGet) fail(err error, started bool) {
	p.err = p.t.failed(p.c, p.req, err)
	p.t.discard(p.c)
	if p.req.Context().Err() == nil && p.reused && !started && rewind(p.req) {
		p.t.counts.serverClosed.Add(1)
		p.err = errRetry
	}
}

// errRetry marks a pendingGet whose request is to be sent once more.
var errRetry = errors.New("s3: send again")

// Finish reads the answer into w, as Get does.
func (p *pendingGet) Finish(w io.Writer) (int64, error) {
	// Copies: once the body is read the connection, and p in it, may be
	// another request's.
	s, t, req, key, o, err := p.s, p.t, p.req, p.key, p.o, p.err
	if s == nil { // failed before a request was made
		return 0, err
	}
	var resp *http.Response
	if err == nil {
		var started bool
		if resp, started, err = t.receive(p.c, req, o.Trace, p.ph, p.sent, p.deadline, p.awaited); err != nil {
			p.fail(err, started)
			err = p.err
		}
	}
	if err == nil {
		// Dropped now: the connection keeps p, idle or waiting, until its
		// next request, and the request's heap with it (1-2 KB).
		*p = pendingGet{}
	}
	if err == errRetry {
		resp, err = t.attempt(req, o.Trace, 1) // waiting in it: a stale connection is rare
	}
	if err != nil {
		return 0, s.requestError(req, key, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		serr := s.statusError(req.Context(), resp)
		s.release(resp)
		return 0, opError("get", key, serr)
	}
	return s.readBody(resp, key, "get", o, w)
}

// requestError is a failed GET's error as Get reports it: the method
// and URL, then the key.
func (s *Store) requestError(req *http.Request, key string, err error) error {
	return opError("get", key, &url.Error{Op: req.Method, URL: req.URL.String(), Err: err})
}
