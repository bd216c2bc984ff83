package loadgen_test

import (
	"context"
	"strings"
	"testing"

	"github.com/objbench/objbench/faultserver"
	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/retry"
	"github.com/objbench/objbench/workload"
)

// A store that answers 30% of all requests 503 SlowDown: cleanup's
// listing and deletes are tried again, the deletes that failed in the
// measured cleanup step are swept up after it, and the run leaves nothing
// of its own behind (it used to fail at the first 503 on the listing and
// keep every object).
func TestCleanupOutlastsABusyStore(t *testing.T) {
	_, st := startFault(t, faultserver.Config{Seed: 3, SlowDown: 0.3})
	sp := workload.Spec{Stages: []workload.Stage{
		{Name: "main", Kind: result.KindMain, Streams: []workload.Stream{{Name: "p", Mix: []workload.OpWeight{{Op: "put", Weight: 1}},
			Concurrency: []int{4}, Bounds: workload.Bounds{Ops: 200}, Objects: workload.KeySpace{Prefix: "p/"}, Size: 1024}}},
		{Name: "cleanup", Kind: result.KindCleanup},
	}}
	ctx := context.Background()
	out, err := loadgen.Run(ctx, config(t, st, sp))
	if err != nil {
		t.Fatal(err)
	}
	if !out.CleanedUp || out.CleanupNote != "" {
		t.Errorf("cleaned up %v, note %q", out.CleanedUp, out.CleanupNote)
	}
	var left []string
	if err := retry.Do(ctx, retry.Around(20), func() (err error) {
		left, err = storage.KeysUnder(ctx, st, ns)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Errorf("%d objects of the run left: %v", len(left), left[:min(len(left), 5)])
	}
	clean := out.Steps[len(out.Steps)-1]
	if !strings.Contains(strings.Join(clean.Notes, "; "), "swept") {
		t.Errorf("the cleanup step does not say its failed deletes were swept up: %v", clean.Notes)
	}
}
