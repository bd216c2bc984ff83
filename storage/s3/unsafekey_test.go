package s3_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"path"
	"strings"
	"sync"
	"testing"

	"github.com/objbench/objbench/storage"
)

// A proxy that normalises paths (dot segments removed, slashes merged, as
// RFC 3986 and many gateways do) turns DELETE /bench/objbench/RUN/../../a
// into DELETE /bench/a. So no request carries a key whose path could be
// rewritten: each op refuses it, named, and the proxy sees nothing.
func TestUnsafeKeysAreNeverSent(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	proxy := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+path.Clean(r.URL.Path))
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	st := newStore(t, proxy.URL)
	ctx := context.Background()
	for _, key := range []string{"objbench/RUN/../../precious/a", "objbench/RUN//a", "objbench/RUN/..%2F..%2Fprecious%2Fb", "objbench/RUN/./a", "/rooted"} {
		ops := map[string]error{
			"delete": st.Delete(ctx, key),
			"put":    func() error { _, err := st.Put(ctx, key, strings.NewReader("x"), 1, storage.PutOptions{}); return err }(),
			"get":    func() error { _, err := st.Get(ctx, key, storage.GetOptions{}, io.Discard); return err }(),
			"stat":   func() error { _, err := st.Stat(ctx, key); return err }(),
			"copy":   func() error { _, err := st.CopyObject(ctx, "objbench/RUN/ok", key, storage.CopyOptions{}); return err }(),
			"create-multipart": func() error {
				_, err := st.CreateMultipartWith(ctx, key, storage.PutOptions{})
				return err
			}(),
			"delete-objects": func() error {
				_, err := st.DeleteObjects(ctx, []storage.ObjectID{{Key: "objbench/RUN/ok"}, {Key: key}})
				return err
			}(),
		}
		for op, err := range ops {
			if !errors.Is(err, storage.ErrUnsafeKey) || !strings.Contains(err.Error(), key) {
				t.Errorf("%s %q: %v; want it refused as an unsafe key, named", op, key, err)
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) > 0 {
		t.Errorf("the proxy got %d requests: %v", len(seen), seen)
	}
}
