package s3_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// A GET sent apart (StartGet, Await, Finish: the many-workers path)
// answers as Get does: the body's bytes, the trace, a missing object's
// error, a cancelled context's; a request that meets a connection the
// server closed while idle is sent again. Stores with few connections, a
// connection limit or TLS do not send GETs apart, nor those for hundreds
// of workers (the handoffs cost CPU where it is what is measured).
func TestGetApart(t *testing.T) {
	body := strings.Repeat("abcdefgh", 125)
	var closeAfter atomic.Bool
	srv := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/missing") {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `<Error><Code>NoSuchKey</Code><Message>none</Message></Error>`)
			return
		}
		w.Header().Set("Content-Length", "1000")
		_, _ = io.WriteString(w, body)
		if closeAfter.Load() { // closed without saying so, as an idle timeout does
			w.(http.Flusher).Flush()
			if c, _, err := http.NewResponseController(w).Hijack(); err == nil {
				c.Close()
			}
		}
	}))
	tlsSrv := startTLSServer(t, srv.Config.Handler)
	for _, c := range []struct {
		name  string
		mod   func(*s3.Config)
		apart bool
	}{
		{"tls", func(c *s3.Config) {
			c.Endpoint, c.Insecure, c.HTTPClient, c.MaxConns = tlsSrv.URL, true, "direct", 4096
		}, false},
		{"thousands", func(c *s3.Config) { c.HTTPClient, c.MaxConns = "direct", 4096 }, true},
		{"hundreds", func(c *s3.Config) { c.HTTPClient, c.MaxConns = "direct", 512 }, false},
		{"few", func(c *s3.Config) { c.HTTPClient, c.MaxConns = "direct", 8 }, false},
		{"limited", func(c *s3.Config) { c.HTTPClient, c.MaxConns, c.MaxConnsPerHost = "direct", 4096, 16 }, false},
		{"std", func(c *s3.Config) { c.HTTPClient, c.MaxConns = "std", 4096 }, false},
	} {
		s := newStore(t, srv.URL, c.mod)
		if got := s.GetsApart(); got != c.apart {
			t.Errorf("%s: GetsApart %v, want %v", c.name, got, c.apart)
		}
		if _, ok := s.StartGet(context.Background(), "obj", storage.GetOptions{}); ok != c.apart {
			t.Errorf("%s: StartGet ok %v, want %v", c.name, ok, c.apart)
		}
	}
	s := newStore(t, srv.URL, func(c *s3.Config) { c.HTTPClient, c.MaxConns = "direct", 4096 })
	ctx := context.Background()
	get := func(key string, w io.Writer, await bool, tr *storage.Trace) (int64, error) {
		p, ok := s.StartGet(ctx, key, storage.GetOptions{Trace: tr})
		if !ok {
			t.Fatal("StartGet refused a plain GET")
		}
		if await {
			p.Await()
		}
		return p.Finish(w)
	}
	for _, await := range []bool{true, false} {
		var got bytes.Buffer
		var tr storage.Trace
		if n, err := get("obj", &got, await, &tr); err != nil || n != 1000 || got.String() != body {
			t.Fatalf("await %v: %d bytes, %v; want the 1000 bytes", await, n, err)
		}
		if tr.FirstByte.IsZero() || tr.Phases.Send <= 0 {
			t.Errorf("await %v: trace %+v: want the first byte's time and the send phase", await, tr)
		}
		if n, err := get("obj", io.Discard, await, nil); err != nil || n != 1000 {
			t.Fatalf("await %v, into io.Discard: %d, %v", await, n, err)
		}
	}
	if got := s.Connections(); got.Opened != 1 {
		t.Errorf("%+v: want one connection for every GET", got)
	}
	_, err := get("missing", io.Discard, true, nil)
	_, want := s.Get(ctx, "missing", storage.GetOptions{}, io.Discard)
	if !errors.Is(err, storage.ErrNotFound) || err.Error() != want.Error() {
		t.Errorf("missing object: %v; want Get's %v", err, want)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	p, ok := s.StartGet(cancelled, "obj", storage.GetOptions{})
	if !ok {
		t.Fatal("StartGet refused a cancelled GET: it reports the cancel through Finish")
	}
	p.Await()
	if _, err := p.Finish(io.Discard); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
	closeAfter.Store(true)
	for i := range 3 {
		if n, err := get("obj", io.Discard, true, nil); err != nil || n != 1000 {
			t.Fatalf("GET %d after the server closed the connection: %d, %v", i, n, err)
		}
	}
	if got := s.Connections(); got.ServerClosed == 0 {
		t.Errorf("%+v: want the closed connections counted", got)
	}
}
