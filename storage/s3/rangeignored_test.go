package s3_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/objbench/objbench/storage"
)

// A gateway that ignores Range answers 200 with the whole object; a ranged
// GET must fail (counted as http_200) instead of counting a full read.
func TestRangeIgnoredIsAnError(t *testing.T) {
	srv := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, strings.Repeat("x", 1000))
	}))
	s := newStore(t, srv.URL)
	n, err := s.Get(context.Background(), "k", storage.GetOptions{Range: &storage.Range{Offset: 10, Length: 100}}, io.Discard)
	if err == nil || storage.ErrorClass(err) != "http_200" || n != 0 {
		t.Fatalf("ranged GET answered with the whole object: n=%d err=%v class=%q", n, err, storage.ErrorClass(err))
	}
	if n, err := s.Get(context.Background(), "k", storage.GetOptions{}, io.Discard); err != nil || n != 1000 {
		t.Fatalf("plain GET: %d, %v", n, err)
	}
}
