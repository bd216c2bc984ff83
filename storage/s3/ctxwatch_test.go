package s3_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// A connection watches its requests' context for as long as the context
// stays the same (storage/s3/directwatch.go). Its end must cut a request
// in flight, and must not spoil the connection for the next request under
// another context: it is reused, not dropped.
func TestContextEndCutsItsRequestOnly(t *testing.T) {
	for _, client := range clients {
		t.Run(client, func(t *testing.T) {
			w := newConnWatch()
			hold := make(chan struct{})
			defer close(hold)
			srv := watchedServer(t, w, func(rw http.ResponseWriter, r *http.Request) {
				if strings.HasSuffix(r.URL.Path, "/held") {
					rw.WriteHeader(http.StatusOK)
					rw.(http.Flusher).Flush() // the head is in; the body never comes
					select {
					case <-hold:
					case <-r.Context().Done():
					}
					return
				}
				_, _ = io.WriteString(rw, "0123456789")
			})
			s := newStore(t, srv, func(c *s3.Config) { c.HTTPClient = client })
			get := func(ctx context.Context, key string) error {
				_, err := s.Get(ctx, key, storage.GetOptions{}, io.Discard)
				return err
			}
			// A context ending while its connection waits in the pool.
			first, cancel := context.WithCancel(context.Background())
			if err := get(first, "k"); err != nil {
				t.Fatal(err)
			}
			cancel()
			if err := get(first, "k"); !errors.Is(err, context.Canceled) {
				t.Fatalf("GET under an ended context: %v, want context.Canceled", err)
			}
			if err := get(context.Background(), "k"); err != nil {
				t.Fatalf("GET under a live context after another ended: %v", err)
			}
			// A context ending while its request waits for the body.
			held, cancelHeld := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() { errc <- get(held, "held") }()
			w.waitInFlight(t, 1)
			cancelHeld()
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Fatalf("GET cut by its context: %v, want context.Canceled", err)
			}
			if err := get(context.Background(), "k"); err != nil {
				t.Fatalf("GET after one was cut: %v", err)
			}
			// Two connections: the first served every request up to the
			// cut one (a third would mean the first context's end spoiled
			// it); the last GET needed another. A cut request is not the
			// server closing a connection.
			if _, _, opened, _ := w.seen(); opened > 2 {
				t.Errorf("the server saw %d connections, want at most 2", opened)
			}
			if got := s.Connections(); got.Opened > 2 || got.ServerClosed != 0 {
				t.Errorf("Connections() = %+v, want at most 2 opened, none closed by the server", got)
			}
		})
	}
}
