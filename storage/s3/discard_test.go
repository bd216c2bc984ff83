package s3_test

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// A GET into io.Discard (the load generator's reads) counts every byte of
// small and large bodies, keeps the connection for the next request, and
// fails when the body ends short of its Content-Length, with the waiting
// many-workers transport and without.
func TestGetIntoDiscard(t *testing.T) {
	srv := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
		n, _ := strconv.Atoi(strings.TrimPrefix(key, "short"))
		w.Header().Set("Content-Length", strconv.Itoa(n))
		body := strings.Repeat("x", n)
		if strings.HasPrefix(key, "short") {
			_, _ = io.WriteString(w, body[:n/2])
			panic(http.ErrAbortHandler) // the connection is cut mid-body
		}
		_, _ = io.WriteString(w, body)
	}))
	for _, conns := range []int{8, 512} {
		s := newStore(t, srv.URL, func(c *s3.Config) { c.HTTPClient, c.MaxConns = "direct", conns })
		ctx := context.Background()
		for _, size := range []int64{1, 4 << 10, 8 << 10, 8<<10 + 1, 1 << 20} {
			for range 2 {
				n, err := s.Get(ctx, strconv.FormatInt(size, 10), storage.GetOptions{}, io.Discard)
				if err != nil || n != size {
					t.Fatalf("conns %d: GET of %d bytes: %d, %v", conns, size, n, err)
				}
			}
		}
		if got := s.Connections(); got.Opened != 1 || got.Reused != got.Requests-1 {
			t.Errorf("conns %d: %+v, want one connection reused by every request", conns, got)
		}
		for _, size := range []int{4 << 10, 64 << 10} {
			n, err := s.Get(ctx, "short"+strconv.Itoa(size), storage.GetOptions{}, io.Discard)
			if err == nil {
				t.Errorf("conns %d: a body cut at half of %d: %d bytes, %v; want an error", conns, size, n, err)
			}
		}
		if n, err := s.Get(ctx, "100", storage.GetOptions{}, io.Discard); err != nil || n != 100 {
			t.Errorf("conns %d: GET after a cut body: %d, %v", conns, n, err)
		}
	}
}
