package s3server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/johannesboyne/gofakes3"
)

// frontDoor sits in front of gofakes3: it checks signatures, unwraps
// aws-chunked bodies, puts multipart ETags into the ETag header, and logs
// requests when asked to.
type frontDoor struct {
	next   http.Handler
	router *router
	log    *slog.Logger // nil: no request log
	keys   *keys        // nil: no signature is checked (Config.NoAuth)
	// rewrite changes a request once its signature is checked (Config.Rewrite).
	rewrite func(*http.Request)
}

func (h *frontDoor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var sig *signed
	if h.keys != nil {
		var aerr *authError
		if sig, aerr = h.keys.verify(r, time.Now()); aerr != nil {
			writeError(w, aerr.status, aerr.code, aerr.what)
			return
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
	op, why := h.router.route(r)
	if why == nil {
		why = h.router.unsupported(r, op)
	}
	if why != nil {
		writeError(w, why.status, why.code, why.message)
		return
	}
	if isAWSChunked(r) {
		if err := unwrapAWSChunked(r, sig); err != nil {
			writeError(w, http.StatusBadRequest, "InvalidRequest", err.Error())
			return
		}
	}
	// Only object reads can carry etagHeader; other requests skip the wrapper
	// (and its allocation) unless they are logged.
	if h.log == nil && r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.next.ServeHTTP(w, r)
		return
	}
	start := time.Now()
	rw := &responseWriter{ResponseWriter: w, status: http.StatusOK}
	h.next.ServeHTTP(rw, r)
	// gofakes3 answers a plain HEAD without writing anything; the headers
	// are still open for changes until the handler returns.
	rw.fixHeaders()
	if h.log != nil {
		h.log.LogAttrs(r.Context(), slog.LevelInfo, "s3 request",
			slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.String("query", r.URL.RawQuery), slog.Int("status", rw.status),
			slog.Int64("in", max(r.ContentLength, 0)), slog.Int64("out", rw.written),
			slog.Duration("took", time.Since(start)), slog.String("remote", r.RemoteAddr))
	}
}

// responseWriter fixes headers before they are sent and counts the reply.
// It keeps ReadFrom so file bodies still go out with sendfile.
type responseWriter struct {
	http.ResponseWriter
	fixed   bool
	status  int
	written int64
}

func (w *responseWriter) fixHeaders() {
	if w.fixed {
		return
	}
	w.fixed = true
	h := w.Header()
	if v := h.Get(etagHeader); v != "" {
		h.Set("ETag", v)
		h.Del(etagHeader)
	}
}

func (w *responseWriter) WriteHeader(code int) {
	if !w.fixed {
		w.status = code
	}
	w.fixHeaders()
	w.ResponseWriter.WriteHeader(code)
}

func (w *responseWriter) Write(p []byte) (int, error) {
	w.fixHeaders()
	n, err := w.ResponseWriter.Write(p)
	w.written += int64(n)
	return n, err
}

func (w *responseWriter) ReadFrom(src io.Reader) (int64, error) {
	w.fixHeaders()
	n, err := io.Copy(w.ResponseWriter, src)
	w.written += n
	return n, err
}

func (w *responseWriter) Flush() { http.NewResponseController(w.ResponseWriter).Flush() }

func (w *responseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// writeError answers in S3's XML error format, for the few errors raised
// before gofakes3 sees the request.
func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	_ = xml.NewEncoder(w).Encode(struct {
		XMLName xml.Name `xml:"Error"`
		Code    string
		Message string
	}{Code: code, Message: msg})
}

// gofakesLog passes gofakes3's errors and warnings to slog. Its info
// messages repeat what the request log says, so they go to debug.
type gofakesLog struct{ log *slog.Logger }

func (l gofakesLog) Print(level gofakes3.LogLevel, v ...any) {
	lvl := slog.LevelDebug
	switch level {
	case gofakes3.LogErr:
		lvl = slog.LevelError
	case gofakes3.LogWarn:
		lvl = slog.LevelWarn
	}
	ctx := context.Background()
	if l.log.Enabled(ctx, lvl) { // gofakes3 logs several times per request
		l.log.Log(ctx, lvl, "gofakes3: "+fmt.Sprint(v...))
	}
}

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
		return n, gofakes3.ErrorMessage(gofakes3.ErrBadDigest, "XAmzContentSHA256Mismatch: the body is not the one the request signed")
	}
	return n, err
}

func (p *payloadCheck) Close() error { return p.rc.Close() }
