package run

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/objbench/objbench/distributed"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
)

// Before its first request under the namespace, each process of a run
// records in the store what it is about to write: a manifest under
// NAMESPACE/_workers/manifest/rank-R.json with the run id, the host and
// the workload. It is the evidence a later `objbench clean --run`
// needs: which namespace is an objbench run's, and which of the keys
// listed there the workload makes (CleanRun deletes those and nothing
// else). A run that cleans up removes it last; a run cut short, killed
// or run with --no-cleanup leaves it beside its objects.

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
	if storage.ErrorClass(err) == storage.ClassNotFound {
		return nil
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
