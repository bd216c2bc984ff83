package loadgen_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/mem"
	"github.com/objbench/objbench/workload"
)

// Against a store whose listing ignores its prefix, cleanup deletes
// nothing it listed (the objects of others survive) and the run fails,
// naming the fault.
func TestCleanupTrustsNoListingThatIgnoresItsPrefix(t *testing.T) {
	ctx := context.Background()
	st := mem.New()
	for _, k := range []string{"p/1", "p/2", "p/3"} {
		if _, err := st.Put(ctx, k, strings.NewReader("mine"), 4, storage.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	sp := workload.Spec{Stages: []workload.Stage{
		{Name: "main", Kind: workload.KindMain, Streams: []workload.Stream{{Name: "w", Concurrency: []int{2},
			Bounds: workload.Bounds{Ops: 10, Duration: 10 * time.Second}, Mix: []workload.OpWeight{{Op: "put", Weight: 1}},
			Size: 10, Objects: workload.KeySpace{Prefix: "w/"}}}},
		{Name: "cleanup", Kind: workload.KindCleanup},
	}}
	out, err := loadgen.Run(ctx, config(t, testenv.PrefixIgnoring{Store: st}, sp))
	if !errors.Is(err, storage.ErrListingFault) || out.CleanedUp {
		t.Errorf("run: %v, cleaned up %v; want the listing fault, not cleaned up", err, out.CleanedUp)
	}
	for _, k := range []string{"p/1", "p/2", "p/3"} {
		if _, err := st.Stat(ctx, k); err != nil {
			t.Errorf("%s: %v; an object outside the run's namespace was deleted", k, err)
		}
	}
}

// Dispose empties the run's namespace in a bucket it created before it
// removes the bucket; a bucket that also holds objects the run did not
// write is kept, and the outcome says it is not cleaned up, and why.
func TestDisposeKeepsABucketWithOthersObjects(t *testing.T) {
	ctx := context.Background()
	c := newCluster() // b1 does not exist: the run creates it
	sp := workload.Spec{Stages: []workload.Stage{
		{Name: "init", Kind: workload.KindInit, Streams: []workload.Stream{{Objects: workload.KeySpace{Buckets: []string{"b1"}}}}},
		{Name: "main", Kind: workload.KindMain, Streams: []workload.Stream{{Name: "w", Concurrency: []int{1},
			Bounds: workload.Bounds{Ops: 5, Duration: 10 * time.Second}, Mix: []workload.OpWeight{{Op: "put", Weight: 1}}, Size: 10,
			Objects: workload.KeySpace{Buckets: []string{"b1"}, Prefix: "o-", Index: sel(t, "s(1,5)")}}}},
		// no cleanup stage: dispose finds the run's objects still there
		{Name: "dispose", Kind: workload.KindDispose},
	}}
	cfg := config(t, mem.New(), sp)
	cfg.OpenBucket = c.open
	cfg.BeforeStep = func(_ context.Context, st workload.Stage, _ int) error {
		if st.Kind == workload.KindDispose { // someone else's object arrives during the run
			_, err := c.buckets["b1"].Put(ctx, "theirs", strings.NewReader("x"), 1, storage.PutOptions{})
			return err
		}
		return nil
	}
	out, err := loadgen.Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b := c.buckets["b1"]
	if !b.exists || out.CleanedUp || !strings.Contains(out.CleanupNote, "did not write") {
		t.Errorf("bucket exists %v, cleaned up %v, note %q: want the bucket kept and the reason", b.exists, out.CleanedUp, out.CleanupNote)
	}
	if left := keys(t, b); len(left) != 1 || left[0] != "theirs" {
		t.Errorf("left in b1: %v; want only the object the run did not write", left)
	}
}
