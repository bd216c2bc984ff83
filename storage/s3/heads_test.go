package s3_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// With many workers the client parses a bounded number of response heads
// at once; a head that arrives in pieces must not hold its turn while the
// rest is awaited: with more such answers stalled mid-head than there are
// turns, another GET still gets its answer, and the stalled ones complete
// once their heads do.
func TestStalledHeadsLeaveTurns(t *testing.T) {
	const stalled = 100 // more than the transport's turns (64)
	release := make(chan struct{})
	var partial sync.WaitGroup
	partial.Add(stalled)
	srv := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/stall") {
			w.Header().Set("Content-Length", "5")
			_, _ = io.WriteString(w, "quick")
			return
		}
		c, bw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close()
		_, _ = bw.WriteString("HTTP/1.1 200 OK\r\nContent-")
		_ = bw.Flush()
		partial.Done()
		<-release
		_, _ = bw.WriteString("Length: 7\r\nConnection: close\r\n\r\nstalled")
		_ = bw.Flush()
	}))
	s := newStore(t, srv.URL, func(c *s3.Config) { c.HTTPClient, c.MaxConns = "direct", 512 })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	errs := make(chan error, stalled)
	for range stalled {
		go func() {
			n, err := s.Get(ctx, "stall", storage.GetOptions{}, io.Discard)
			if err == nil && n != 7 {
				err = io.ErrUnexpectedEOF
			}
			errs <- err
		}()
	}
	partial.Wait() // every stalled answer has sent the start of its head
	quick, qcancel := context.WithTimeout(ctx, 10*time.Second)
	n, err := s.Get(quick, "quick", storage.GetOptions{}, io.Discard)
	qcancel()
	close(release)
	if err != nil || n != 5 {
		t.Errorf("GET beside %d stalled heads: %d, %v; want 5 bytes", stalled, n, err)
	}
	for range stalled {
		if err := <-errs; err != nil {
			t.Errorf("stalled GET: %v", err)
		}
	}
}
