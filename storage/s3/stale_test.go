package s3_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sync"
	"testing"

	pl "github.com/objbench/objbench/payload"
	"github.com/objbench/objbench/storage"
)

// A server that closes each connection right after answering, without
// saying so (as an idle timeout shorter than the client's does): the next
// request on that pooled connection fails before any response byte, and
// must be sent again on a new connection — PUTs included, with the same
// body.
func TestStaleConnectionIsRetriedForPut(t *testing.T) {
	var mu sync.Mutex
	var bodies [][]byte
	srv := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, b)
		mu.Unlock()
		w.Header().Set("ETag", `"x"`)
		w.Header().Set("Content-Length", "0") // complete and reusable, as far as the client can tell
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
		}
	}))
	s := newStore(t, srv.URL)
	blk, err := pl.NewBlock(1<<16, 5, 0)
	if err != nil {
		t.Fatal(err)
	}
	body := pl.NewReader(blk)
	for i := range 3 {
		body.Reset(uint64(i), 20_000)
		if _, err := s.Put(context.Background(), "k", body, 20_000, storage.PutOptions{}); err != nil {
			t.Fatalf("put %d on a silently closed connection: %v", i, err)
		}
	}
	want := pl.NewReader(blk)
	mu.Lock()
	defer mu.Unlock()
	for i, b := range bodies {
		if len(b) != 20_000 {
			t.Errorf("request %d carried %d bytes", i, len(b))
		}
	}
	want.Reset(2, 20_000)
	last, _ := io.ReadAll(want)
	if !bytes.Equal(bodies[len(bodies)-1], last) {
		t.Error("the replayed body differs from the object's bytes")
	}
}
