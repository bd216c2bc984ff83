package s3_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// heldBody delivers its bytes, then holds net/http's read past them (the
// writer checks a body is no longer than its Content-Length) until the
// test releases it or a deadline passes, and notes whether that read
// ended after Put had returned: the caller owns the reader again then
// (loadgen resets it for its next request at once).
type heldBody struct {
	left     int64
	release  chan struct{}
	held     chan struct{} // closed when the held read ends
	returned atomic.Bool
	late     atomic.Bool
}

func (b *heldBody) Read(p []byte) (int, error) {
	if b.left > 0 {
		n := min(int64(len(p)), b.left)
		b.left -= n
		return int(n), nil
	}
	select {
	case <-b.release:
	case <-time.After(300 * time.Millisecond):
	}
	if b.returned.Load() {
		b.late.Store(true)
	}
	close(b.held)
	return 0, io.EOF
}

// The server has read the whole body and answered while net/http's
// writer still reads the body: Put must not return before the writer is
// done with it (the std client waits for WroteRequest), or the caller's
// next request loses its bytes ("ContentLength=4096 with Body length 0",
// seen about once in 1,000 PUTs with a new connection per request).
func TestStdClientReturnsOnlyWhenTheBodyIsDone(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("ETag", `"abc"`)
	}))
	defer srv.Close()
	for _, keep := range []bool{true, false} {
		st, err := s3.New(context.Background(), s3.Config{Endpoint: srv.URL, Bucket: "b", PathStyle: true, Region: "us-east-1",
			AccessKey: "k", SecretKey: "s", HTTPClient: "std", NoKeepAlive: !keep})
		if err != nil {
			t.Fatal(err)
		}
		body := &heldBody{left: 64 << 10, release: make(chan struct{}), held: make(chan struct{})} // more than net/http buffers: all on the wire before its extra read
		if _, err := st.Put(context.Background(), "k", body, 64<<10, storage.PutOptions{Trace: &storage.Trace{}}); err != nil {
			t.Fatal(err)
		}
		body.returned.Store(true)
		close(body.release)
		select {
		case <-body.held:
		case <-time.After(5 * time.Second):
			t.Fatal("net/http never read past the body")
		}
		st.Close()
		if body.late.Load() {
			t.Errorf("keep-alive %v: net/http still read the body after Put returned", keep)
		}
	}
}
