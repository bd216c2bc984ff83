package faultserver_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/objbench/objbench/faultserver"
	"github.com/objbench/objbench/storage"
)

// The lies are told as configured: keys that climb out of the prefix
// asked for, in both spellings, beside the real ones.
func TestListLiesEscapes(t *testing.T) {
	_, st := startServer(t, faultserver.Config{ListLies: faultserver.ListLies{Escapes: []string{"precious/a"}}})
	ctx := context.Background()
	if _, err := st.Put(ctx, "objbench/RUN/1", strings.NewReader("x"), 1, storage.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	var keys []string
	if err := st.List(ctx, "objbench/RUN/", func(o storage.ObjectInfo) error { keys = append(keys, o.Key); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []string{"objbench/RUN/..%2F..%2Fprecious%2Fa", "objbench/RUN/../../precious/a", "objbench/RUN/1"}
	if !slices.Equal(keys, want) {
		t.Errorf("listed %q, want %q", keys, want)
	}
}

// Behind NormalizePaths a request for a key with dot segments reaches
// another key: the danger the client must not walk into. (Sent raw: the
// objbench client refuses such keys.)
func TestNormalizePathsReachesAnotherKey(t *testing.T) {
	srv, st := startServer(t, faultserver.Config{ListLies: faultserver.ListLies{NormalizePaths: true}})
	ctx := context.Background()
	if _, err := st.Put(ctx, "precious/a", strings.NewReader("x"), 1, storage.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, srv.Endpoint()+"/"+srv.Bucket()+"/objbench/RUN/../../precious/a", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.URL.Opaque = "//" + req.URL.Host + "/" + srv.Bucket() + "/objbench/RUN/../../precious/a" // as sent, not cleaned by net/url
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if _, err := st.Stat(ctx, "precious/a"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("precious/a after DELETE objbench/RUN/../../precious/a through the proxy: %v; want it gone", err)
	}
}
