package loadgen

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/mem"
)

// A listing whose files can no longer be read back stops its deletes
// with the reason, and says so (readErr): cleanup then notes objects
// left, rather than a clean finish.
func TestListingReadBackFailureIsReported(t *testing.T) {
	ctx := context.Background()
	st := mem.New()
	const n = 60_000 // more than a spill holds in memory: it goes to disk
	for i := range n {
		if _, err := st.Put(ctx, fmt.Sprintf("ns/%08d-%s", i, strings.Repeat("k", 60)), strings.NewReader(""), 0, storage.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	l, err := listUnder(ctx, []storage.Store{st}, "ns/", "ns/", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	w := l.work(0)
	if w.n != n {
		t.Fatalf("%d deletes planned, want %d", w.n, n)
	}
	if _, ok, _ := w.pull(); !ok {
		t.Fatal("no first delete")
	}
	if l.readErr() != nil {
		t.Fatal(l.readErr())
	}
	// The runs go from under the reading: the next pull must open them
	// again, and cannot.
	if runs := l.keys[0].Runs(); runs == 0 {
		t.Fatalf("the listing of %d keys was not spilled to disk", n)
	}
	_ = l.feed.Close()
	if err := l.keys[0].Close(); err != nil {
		t.Fatal(err)
	}
	_, ok, cause := w.pull()
	if ok || !strings.Contains(cause, "could not be read back") || l.readErr() == nil {
		t.Errorf("pull after the files went: ok %v, cause %q, readErr %v", ok, cause, l.readErr())
	}
}
