package transfer_test

import (
	"context"
	"testing"

	"github.com/objbench/objbench/transfer"
)

// A plan of half a million generated objects lists none of them: they
// are made as the plan runs, in key order, named and seeded as before.
func TestGeneratedPlanHoldsNoItems(t *testing.T) {
	p, err := transfer.UploadPlan("gen:500000x1KiB", "d", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Items) != 0 || p.Objects() != 500_000 || p.Bytes() != 500_000<<10 || p.MinSize() != 1024 || p.MaxSize() != 1024 {
		t.Fatalf("%d items held, %d objects, %d bytes, sizes %d-%d", len(p.Items), p.Objects(), p.Bytes(), p.MinSize(), p.MaxSize())
	}
	p.Limit(3)
	var got []transfer.Item
	if err := p.Each(context.Background(), func(it transfer.Item) error { got = append(got, it); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []string{"d/file-000001", "d/file-000002", "d/file-000003"}
	if len(got) != len(want) {
		t.Fatalf("limited to 3: %d items", len(got))
	}
	for i, it := range got {
		if it.Key != want[i] || it.Size != 1024 || it.Seed != uint64(i) || it.Path != "" {
			t.Errorf("item %d = %+v, want %s of 1 KiB, seed %d", i, it, want[i], i)
		}
	}
}
