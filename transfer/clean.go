package transfer

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/objbench/objbench/storage"
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
// one, is a fault of the store: Clean then deletes nothing at all. Dry
// counts what it would delete.
func Clean(ctx context.Context, st storage.Store, prefix string, dry bool) (Cleaned, error) {
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
	recorded := map[string]manifestKey{}
	owner := map[string][]string{} // manifest -> its keys
	for _, m := range manifests {
		_, keys, err := readManifest(ctx, st, m, prefix)
		if err != nil {
			return c, err
		}
		for _, k := range keys {
			recorded[k.Key] = k // a later upload of a key records what is there now
			owner[m] = append(owner[m], k.Key)
		}
	}
	c.Manifests = len(manifests)
	present, err := listPresent(ctx, st, prefix, recorded, &c)
	if err != nil {
		return c, err
	}
	var failed []error
	deleted := map[string]bool{}
	for key, k := range recorded {
		o, ok := present[key]
		switch {
		case !ok:
			c.Gone++
			deleted[key] = true
			continue
		case o.Size != k.Size || (k.ETag != "" && o.ETag != "" && unquote(k.ETag) != unquote(o.ETag)):
			c.Changed++
			continue
		}
		if !dry {
			err := storage.RetryTransient(ctx, 6, func() error { return st.Delete(ctx, key) })
			if err != nil && !errors.Is(err, storage.ErrNotFound) {
				failed = append(failed, fmt.Errorf("delete %s: %w", key, err))
				continue
			}
		}
		deleted[key] = true
		c.Deleted++
		c.Bytes += k.Size
	}
	for _, m := range manifests {
		all := true
		for _, k := range owner[m] {
			all = all && deleted[k]
		}
		if !all {
			c.Kept = append(c.Kept, m)
			continue
		}
		if !dry {
			if err := storage.RetryTransient(ctx, 6, func() error { return st.Delete(ctx, m) }); err != nil && !errors.Is(err, storage.ErrNotFound) {
				failed = append(failed, fmt.Errorf("delete manifest %s: %w", m, err))
			}
		}
	}
	return c, errors.Join(failed...)
}

// listPresent lists the prefix once and keeps what it finds of the
// recorded keys; the others are counted. A key outside the prefix is a
// fault (storage.ListUnder's error): nothing is deleted.
func listPresent(ctx context.Context, st storage.Store, prefix string, recorded map[string]manifestKey, c *Cleaned) (map[string]storage.ObjectInfo, error) {
	present := map[string]storage.ObjectInfo{}
	list := prefix
	if _, exact := recorded[prefix]; !exact || len(recorded) > 1 {
		list = dirPrefix(prefix)
	}
	err := storage.ListUnder(ctx, st, list, func(o storage.ObjectInfo) error {
		if _, ok := recorded[o.Key]; ok {
			present[o.Key] = o
		} else if under(o.Key, prefix) {
			c.Others++
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s (nothing deleted): %w", list, err)
	}
	return present, nil
}
