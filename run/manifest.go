package run

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/objbench/objbench/distributed"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/workload"
)

// Before its first step that may write (after an init stage, which may
// create the bucket), each process of a run records in the store what it
// is about to write: a manifest under
// NAMESPACE/_workers/manifest/rank-R.json with the run id, the host and
// the workload. It is the evidence a later `objbench clean --run`
// needs: which namespace is an objbench run's, and which of the keys
// listed there the workload makes (CleanRun deletes those and nothing
// else). A run that cleans up, or whose workload has no cleanup stage and
// ran to its end, removes it last; a run cut short, killed or run with
// NoCleanup leaves it beside its objects.

const manifestDir = distributed.ManifestDir

// Manifest is what one process of a run records before it writes.
type Manifest struct {
	RunID     string          `json:"run_id"`
	Rank      int             `json:"rank"`
	Size      int             `json:"size"`
	Host      string          `json:"host"`
	Started   time.Time       `json:"started"`
	Namespace string          `json:"namespace"`
	Spec      json.RawMessage `json:"spec"`
}

// manifestKey is where rank's manifest lives in a run's namespace.
func manifestKey(namespace string, rank int) string {
	return namespace + distributed.MarkerDir + manifestDir + fmt.Sprintf("rank-%06d.json", rank)
}

// writeManifest records m in st.
func writeManifest(ctx context.Context, st storage.Store, m Manifest) error {
	if m.Host == "" {
		m.Host, _ = os.Hostname()
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if _, err := st.Put(ctx, manifestKey(m.Namespace, m.Rank), bytes.NewReader(b), int64(len(b)), storage.PutOptions{}); err != nil {
		return fmt.Errorf("record the run's manifest under %s: %w", m.Namespace, err)
	}
	return nil
}

// dropManifest removes rank's manifest once nothing of the run is left.
func dropManifest(ctx context.Context, st storage.Store, namespace string, rank int) error {
	err := st.Delete(ctx, manifestKey(namespace, rank))
	if storage.ErrorClass(err) == storage.ClassNotFound || errors.Is(err, storage.ErrBucketNotFound) {
		return nil // gone already, or with its bucket (a dispose stage)
	}
	return err
}

// dropManifests removes this process's manifest, and those of the dead
// workers it cleaned up for, once nothing of the run is left.
func dropManifests(ctx context.Context, st storage.Store, res *result.Run, adopted []int) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	rank := 0
	if res.Worker != nil {
		rank = res.Worker.Rank
	}
	for _, r := range append([]int{rank}, adopted...) {
		if err := dropManifest(ctx, st, res.Target.Namespace, r); err != nil {
			res.CleanedUp = false
			res.CleanupNote = fmt.Sprintf("the run's manifest %s is left: %v", manifestKey(res.Target.Namespace, r), err)
		}
	}
}

// manifestFirst is the run's BeforeStep: before the first step that may
// write (not init, not delay) it records the manifest, once; then it
// meets the other workers (next). A data set's run records none: its
// objects are kept on purpose (objbench dataset rm).
func manifestFirst(st storage.Store, sp workload.Spec, m Manifest, next func(context.Context, workload.Stage, int) error) func(context.Context, workload.Stage, int) error {
	done := sp.Dataset != ""
	return func(ctx context.Context, stage workload.Stage, i int) error {
		if !done && stage.Kind != workload.KindInit && stage.Kind != workload.KindDelay {
			done = true
			if err := writeManifest(ctx, st, m); err != nil {
				return err
			}
		}
		return next(ctx, stage, i)
	}
}
