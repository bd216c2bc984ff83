package transfer_test

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/mem"
	"github.com/objbench/objbench/transfer"
)

// A download of a prefix holds none of its listing in memory: 60,000
// objects go to a spill (more than it keeps in memory) and come back in
// key order, each with its path under the destination; Limit keeps the
// first keys, and the plan's counts are of what it will move.
func TestDownloadPlanHoldsNoItems(t *testing.T) {
	ctx := context.Background()
	st := mem.New()
	const n = 60_000
	for i := range n {
		key := fmt.Sprintf("mail/%s/%06d.eml", strings.Repeat("x", 60), n-i) // put in reverse order
		if _, err := st.Put(ctx, key, strings.NewReader(strings.Repeat("m", i%7+1)), int64(i%7+1), storage.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	dest := t.TempDir()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p, err := transfer.DownloadPlan(ctx, st, "mail", dest, false)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = p.Close() }()
	runtime.GC()
	runtime.ReadMemStats(&after)
	if held := int64(after.HeapAlloc) - int64(before.HeapAlloc); len(p.Items) != 0 || held > 8<<20 {
		t.Errorf("%d items, %d bytes held by the plan of %d objects", len(p.Items), held, n)
	}
	if p.Objects() != n || p.MinSize() != 1 || p.MaxSize() != 7 || p.Prefix != "mail/" {
		t.Fatalf("%d objects, sizes %d-%d, prefix %q", p.Objects(), p.MinSize(), p.MaxSize(), p.Prefix)
	}
	i := 0
	err = p.Each(ctx, func(it transfer.Item) error {
		i++
		rel := fmt.Sprintf("%s/%06d.eml", strings.Repeat("x", 60), i)
		if it.Key != "mail/"+rel || it.Path != filepath.Join(dest, rel) {
			return fmt.Errorf("item %d: %s to %s", i, it.Key, it.Path)
		}
		return nil
	})
	if err != nil || i != n {
		t.Fatalf("%v after %d items", err, i)
	}
	p.Limit(10)
	var keys []string
	if err := p.Each(ctx, func(it transfer.Item) error { keys = append(keys, it.Key); return nil }); err != nil {
		t.Fatal(err)
	}
	if p.Objects() != 10 || len(keys) != 10 || !strings.HasSuffix(keys[9], "/000010.eml") {
		t.Errorf("limited to 10: %d objects, keys %v", p.Objects(), keys)
	}
}
