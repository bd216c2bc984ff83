package loadgen_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/objbench/objbench/faultserver"
	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/mem"
	"github.com/objbench/objbench/workload"
)

// spilled is more keys than a spill keeps in memory (4 MiB of records of
// ~100 bytes): cleanup's listing goes to disk and is read back.
const spilled = 60_000

func putKeys(t *testing.T, st storage.Store, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if _, err := st.Put(context.Background(), k, strings.NewReader("x"), 1, storage.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

func numbered(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%08d-%s", prefix, i, strings.Repeat("k", 40))
	}
	return out
}

// oneThenCleanup writes one object of its own under prefix (a run that
// wrote nothing has nothing to clean up), then cleans up with stream s
// (none: the whole namespace).
func oneThenCleanup(prefix string, s workload.Stream) workload.Spec {
	st := workload.Stage{Name: "cleanup", Kind: workload.KindCleanup}
	if s.Name != "" {
		st.Streams = []workload.Stream{s}
	}
	return workload.Spec{Stages: []workload.Stage{{Name: "main", Kind: workload.KindMain, Streams: []workload.Stream{{Name: "w",
		Concurrency: []int{1}, Bounds: workload.Bounds{Ops: 1}, Mix: []workload.OpWeight{{Op: "put", Weight: 1}},
		Size: 10, Objects: workload.KeySpace{Prefix: prefix}}}}, st}}
}

// Cleanup deletes every object of a namespace too big for the spill's
// memory, each once, nothing outside it, and leaves no file behind.
func TestCleanupDeletesAListingSpilledToDisk(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where the spill's files go
	st := mem.New()
	putKeys(t, st, numbered(ns+"big/", spilled)...)
	putKeys(t, st, "others/1", "objbench/other-run/1")
	out, err := loadgen.Run(context.Background(), config(t, st, oneThenCleanup("w/", workload.Stream{})))
	if err != nil {
		t.Fatal(err)
	}
	if !out.CleanedUp {
		t.Errorf("not cleaned up: %s", out.CleanupNote)
	}
	if d := total(t, out.Steps[1], "DELETE"); d.Ops != spilled+1 || d.OK != d.Ops {
		t.Errorf("%d deletes, %d ok; want %d", d.Ops, d.OK, spilled+1)
	}
	if left := keys(t, st); strings.Join(left, ",") != "objbench/other-run/1,others/1" {
		t.Errorf("left %d objects (first %q), want only the others'", len(left), left[:min(len(left), 3)])
	}
	if files, err := os.ReadDir(tmp); err != nil || len(files) > 0 {
		t.Errorf("the listing's files are left in %s: %v %v", tmp, files, err)
	}
}

// A listing that strays outside the prefix after tens of thousands of
// the run's own keys (a store ignoring the prefix: the run's keys sort
// first) deletes nothing at all, though the good keys came first and went
// to disk.
func TestCleanupDeletesNothingWhenAListingStraysLate(t *testing.T) {
	st := mem.New()
	mine := numbered(ns+"big/", spilled)
	putKeys(t, st, mine...)
	putKeys(t, st, "zz-others/1")
	out, err := loadgen.Run(context.Background(), config(t, testenv.PrefixIgnoring{Store: st}, oneThenCleanup("w/", workload.Stream{})))
	if !errors.Is(err, storage.ErrListingFault) || out.CleanedUp {
		t.Fatalf("run: %v, cleaned up %v; want the listing fault, not cleaned up", err, out.CleanedUp)
	}
	if left := keys(t, st); len(left) != spilled+2 {
		t.Errorf("%d objects left of %d: the faulty listing's keys were deleted", len(left), spilled+2)
	}
}

// With s3 batch_size, cleanup deletes in DeleteObjects requests of that
// many keys, read back from the listing as the workers ask.
func TestCleanupDeletesInBatchesFromTheListing(t *testing.T) {
	_, st := startFault(t, faultserver.Config{})
	const n, batch = 1_050, 100
	putKeys(t, st, numbered(ns+"b/", n)...)
	putKeys(t, st, ns+"c/kept", "others/1")
	out, err := loadgen.Run(context.Background(), config(t, st, oneThenCleanup("b/", workload.Stream{Name: "c", Concurrency: []int{4},
		Objects: workload.KeySpace{Prefix: "b/"}, S3: &workload.S3Options{BatchSize: batch}})))
	if err != nil {
		t.Fatal(err)
	}
	if d := total(t, out.Steps[1], "DELETE-BATCH"); d.Ops != (n+1+batch-1)/batch || d.OK != d.Ops {
		t.Errorf("%d batch deletes, %d ok; want %d", d.Ops, d.OK, (n+1+batch-1)/batch)
	}
	if left := keys(t, st); strings.Join(left, ",") != ns+"c/kept,others/1" {
		t.Errorf("left %d objects (first %q)", len(left), left[:min(len(left), 3)])
	}
}

// onceCorrupt lists one stray key outside the prefix on its first
// listing only, as a listing corrupted on the way does.
type onceCorrupt struct {
	storage.Store
	listed atomic.Int32
}

func (s *onceCorrupt) List(ctx context.Context, prefix string, fn func(storage.ObjectInfo) error) error {
	if s.listed.Add(1) == 1 {
		if err := fn(storage.ObjectInfo{Key: "objbench/test-rum/corrupted/00000001", Size: 1}); err != nil {
			return err
		}
	}
	return s.Store.List(ctx, prefix, fn)
}

// A cleanup listing that names a key outside the run's prefix once (a body
// corrupted on the way) is listed again, and the clean listing's keys are
// deleted: the run is cleaned up, nothing outside it touched. (A store
// that lists strays every time is refused: TestCleanupDeletesNothingWhen-
// AListingStraysLate, and e2e TestCleanupDeletesOnlyKeysItCanProve.)
func TestCleanupListsAgainAfterAStrayKeyOnce(t *testing.T) {
	st := &onceCorrupt{Store: mem.New()}
	sp := spec(workload.Stream{Name: "p", Concurrency: []int{2}, Bounds: workload.Bounds{Ops: 20, Duration: 10 * time.Second},
		Mix: []workload.OpWeight{{Op: "put", Weight: 1}}, Size: 100, Objects: workload.KeySpace{Prefix: "p/"}})
	out, err := loadgen.Run(context.Background(), config(t, st, sp))
	if err != nil {
		t.Fatal(err)
	}
	if !out.CleanedUp || st.listed.Load() < 2 {
		t.Errorf("cleaned up %v (%s) after %d listings; want the listing taken again and the run cleaned", out.CleanedUp, out.CleanupNote, st.listed.Load())
	}
	if left := keys(t, st.Store); len(left) != 0 {
		t.Errorf("left: %v", left)
	}
}
