package transfer

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/objbench/objbench/internal/spill"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/retry"
)

// Cleaned is what Clean did (or, dry, would do) under a prefix.
type Cleaned struct {
	Manifests int   // manifests found for the prefix
	Deleted   int64 // objects deleted (or to delete, dry)
	Bytes     int64 // their bytes
	// Gone were recorded but are no longer there; Changed are there with
	// another size or ETag than objbench wrote (another writer's now):
	// kept.
	Gone, Changed int64
	// Others are objects under the prefix that no manifest records:
	// never touched.
	Others int64
	// Kept are manifests left in place because some of their keys were
	// kept or could not be deleted.
	Kept []string
}

func (c Cleaned) String() string {
	s := fmt.Sprintf("%d manifests: %d objects (%d bytes) deleted", c.Manifests, c.Deleted, c.Bytes)
	if c.Gone > 0 {
		s += fmt.Sprintf(", %d already gone", c.Gone)
	}
	if c.Changed > 0 {
		s += fmt.Sprintf(", %d kept (changed since objbench wrote them)", c.Changed)
	}
	if c.Others > 0 {
		s += fmt.Sprintf("; %d objects under the prefix that objbench did not record were left alone", c.Others)
	}
	return s
}

// Clean deletes, under prefix, exactly the objects that objbench's uploads
// recorded in their manifests (WriteManifest) and that still hold what
// they wrote (size and, where both are known, ETag, as a listing of the
// prefix shows them), then each manifest all of whose keys are gone. It
// deletes nothing the manifests do not name, whatever the listing holds;
// a manifest recording a key outside the prefix, or a listing returning
// one or going backwards, is a fault of the store: Clean then deletes
// nothing at all. Dry counts what it would delete.
//
// Nothing is held per key: the manifests' records are sorted on disk and
// merged with the listing (in key order) into a list of keys to delete,
// also on disk, which is deleted in batches once the listing is known to
// be sound.
func Clean(ctx context.Context, st storage.Store, prefix string, dry bool) (Cleaned, error) {
	return clean(ctx, st, prefix, dry, "", 0)
}

func clean(ctx context.Context, st storage.Store, prefix string, dry bool, tmp string, runBytes int) (Cleaned, error) {
	var c Cleaned
	dir := ManifestDir(prefix)
	var manifests []string
	err := storage.ListUnder(ctx, st, dir, func(o storage.ObjectInfo) error {
		if strings.HasSuffix(o.Key, ".jsonl") && !strings.Contains(strings.TrimPrefix(o.Key, dir), "/") {
			manifests = append(manifests, o.Key)
		}
		return nil
	})
	if err != nil {
		return c, fmt.Errorf("list manifests under %s: %w", dir, err)
	}
	if len(manifests) == 0 {
		return c, fmt.Errorf("no objbench manifest under %s: nothing recorded as written by objbench under %s", dir, prefix)
	}
	recorded := spill.New(tmp, runBytes) // every manifest's keys, tagged with the manifest's index
	defer func() { _ = recorded.Close() }()
	exact := true // every recorded key is the prefix itself: list it alone, not as a directory
	for j, m := range manifests {
		_, err := readManifest(ctx, st, m, prefix, func(k manifestKey) error {
			exact = exact && k.Key == prefix
			return recorded.Add(spill.Record{Key: k.Key, Size: k.Size, ETag: k.ETag, Tag: j})
		})
		if err != nil {
			return c, err
		}
	}
	c.Manifests = len(manifests)
	doomed := spill.New(tmp, runBytes) // the keys to delete, in key order, one record per manifest naming it
	defer func() { _ = doomed.Close() }()
	kept := make([]bool, len(manifests))
	if err := sift(ctx, st, prefix, exact, recorded, doomed, kept, &c); err != nil {
		return c, err
	}
	var failed []error
	if !dry {
		failed = deleteDoomed(ctx, st, doomed, kept, &c)
	}
	for j, m := range manifests {
		if kept[j] {
			c.Kept = append(c.Kept, m)
			continue
		}
		if !dry {
			if err := retry.Do(ctx, retry.Around(6), func() error { return st.Delete(ctx, m) }); err != nil && !errors.Is(err, storage.ErrNotFound) {
				failed = append(failed, fmt.Errorf("delete manifest %s: %w", m, err))
			}
		}
	}
	return c, errors.Join(failed...)
}
