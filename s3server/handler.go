package s3server

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// frontDoor is the server's http.Handler: it gives every request an id,
// checks its signature, names its operation (routes.go) and refuses what
// the server does not implement before anything is read or changed, unwraps
// aws-chunked bodies, serves the operation and logs it when asked to.
type frontDoor struct {
	svc     *service
	router  *router
	log     *slog.Logger // nil: no request log
	keys    *keys        // nil: no signature is checked (Config.NoAuth)
	idle    time.Duration
	rewrite func(*http.Request) // Config.Rewrite
	idBase  string
	ids     atomic.Uint64
}

// service is what the operations serve from.
type service struct {
	be     *backend
	region string
}

// call is one request on its way through the server.
type call struct {
	w       http.ResponseWriter
	r       *http.Request
	q       url.Values // nil without a query string
	bucket  string
	key     string
	chunked *chunkedBody // the aws-chunked decoder, for its trailers
}

// query returns query parameter name ("" without one).
func (c *call) query(name string) string {
	if c.q == nil {
		return ""
	}
	return c.q.Get(name)
}

func (h *frontDoor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := h.idBase + strconv.FormatUint(h.ids.Add(1), 16)
	hdr := w.Header()
	hdr["X-Amz-Request-Id"] = []string{id}
	hdr["X-Amz-Id-2"] = hdr["X-Amz-Request-Id"]
	if h.log == nil {
		if err := h.serve(w, r); err != nil {
			writeError(w, r, err)
		}
		return
	}
	start := time.Now()
	rw := &responseWriter{ResponseWriter: w, status: http.StatusOK}
	if err := h.serve(rw, r); err != nil {
		writeError(rw, r, err)
	}
	h.log.LogAttrs(r.Context(), slog.LevelInfo, "s3 request",
		slog.String("method", r.Method), slog.String("path", r.URL.Path),
		slog.String("query", r.URL.RawQuery), slog.Int("status", rw.status),
		slog.Int64("in", max(r.ContentLength, 0)), slog.Int64("out", rw.written),
		slog.Duration("took", time.Since(start)), slog.String("remote", r.RemoteAddr), slog.String("id", id))
}

func (h *frontDoor) serve(w http.ResponseWriter, r *http.Request) error {
	var sig *signed
	if h.keys != nil {
		var aerr *s3Err
		if sig, aerr = h.keys.verify(r, time.Now()); aerr != nil {
			return aerr
		}
		if p := r.Header.Get("X-Amz-Content-Sha256"); len(p) == 64 && r.Body != nil && r.Body != http.NoBody {
			r.Body = &payloadCheck{rc: r.Body, want: p, h: sha256.New()} // a signed payload: its hash is checked too
		}
	}
	if h.rewrite != nil {
		h.rewrite(r)
	}
	// No request is served, nor its body read, before its operation is
	// known to be one the server implements.
	spec, q, why := h.router.route(r)
	if why == nil {
		why = h.router.unsupported(r, spec.name)
	}
	if why != nil {
		return why
	}
	c := &call{w: w, r: r, q: q}
	c.bucket, c.key, _ = strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if r.Body != nil && r.Body != http.NoBody && h.idle > 0 {
		r.Body = &idleBody{rc: r.Body, ctl: http.NewResponseController(w), idle: h.idle}
	}
	if isAWSChunked(r) {
		cb, err := unwrapAWSChunked(r, sig)
		if err != nil {
			return err
		}
		c.chunked = cb
	}
	return spec.serve(h.svc, c)
}

// idleBody closes the door on a client that stops sending its body: each
// read must make progress within idle (S3's RequestTimeout). The announced
// Content-Length is no promise, and a connection that sends nothing must
// not be held forever. The deadline is moved at most every idle/8.
type idleBody struct {
	rc   io.ReadCloser
	ctl  *http.ResponseController
	idle time.Duration
	set  time.Time
}

func (b *idleBody) Read(p []byte) (int, error) {
	if now := time.Now(); now.Sub(b.set) > b.idle/8 {
		b.set = now
		_ = b.ctl.SetReadDeadline(now.Add(b.idle))
	}
	return b.rc.Read(p)
}

func (b *idleBody) Close() error { return b.rc.Close() }

// responseWriter counts the answer for the request log. It keeps
// ReadFrom so file bodies still go out with sendfile.
type responseWriter struct {
	http.ResponseWriter
	wrote   bool
	status  int
	written int64
}

func (w *responseWriter) WriteHeader(code int) {
	if !w.wrote {
		w.wrote, w.status = true, code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *responseWriter) Write(p []byte) (int, error) {
	w.wrote = true
	n, err := w.ResponseWriter.Write(p)
	w.written += int64(n)
	return n, err
}

func (w *responseWriter) ReadFrom(src io.Reader) (int64, error) {
	w.wrote = true
	n, err := io.Copy(w.ResponseWriter, src)
	w.written += n
	return n, err
}

func (w *responseWriter) Flush() { http.NewResponseController(w.ResponseWriter).Flush() }

func (w *responseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// payloadCheck hashes a signed payload as it is read and fails the read
// that ends it when the hash is not the one the request signed.
type payloadCheck struct {
	rc   io.ReadCloser
	want string
	h    hash.Hash
}

func (p *payloadCheck) Read(b []byte) (int, error) {
	n, err := p.rc.Read(b)
	p.h.Write(b[:n])
	if err == io.EOF && hex.EncodeToString(p.h.Sum(nil)) != p.want {
		return n, errorf(http.StatusBadRequest, "XAmzContentSHA256Mismatch", "The provided 'x-amz-content-sha256' header does not match what was computed.")
	}
	return n, err
}

func (p *payloadCheck) Close() error { return p.rc.Close() }
