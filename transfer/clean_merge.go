package transfer

import (
	"context"
	"errors"
	"fmt"

	"github.com/objbench/objbench/internal/spill"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/retry"
)

// sift merges the manifests' records (in key order) with a listing of the
// prefix: a recorded key not listed is gone; one listed with another size
// or ETag than recorded is kept (another writer's now), and so is every
// manifest naming it; the others go to doomed, counted as deleted. A
// listed key no manifest records is someone else's: counted, never
// touched. A listing outside the prefix or out of key order is a fault:
// nothing is deleted.
func sift(ctx context.Context, st storage.Store, prefix string, exact bool, recorded, doomed *spill.Sorter, kept []bool, c *Cleaned) error {
	m, err := recorded.Open()
	if err != nil {
		return err
	}
	defer func() { _ = m.Close() }()
	g := &groups{m: m}
	g.next()
	list := dirPrefix(prefix)
	if exact {
		list = prefix
	}
	prev, first := "", true
	err = storage.ListUnder(ctx, st, list, func(o storage.ObjectInfo) error {
		if !first && o.Key <= prev {
			return fmt.Errorf("%w: listing %q returned %q after %q: not in key order", storage.ErrListingFault, list, o.Key, prev)
		}
		prev, first = o.Key, false
		for g.ok && g.key() < o.Key {
			c.Gone++
			g.next()
		}
		if !g.ok || g.key() != o.Key {
			if under(o.Key, prefix) {
				c.Others++
			}
			return nil
		}
		defer g.next()
		k := g.recs[len(g.recs)-1] // the latest manifest's record: what is there now
		if o.Size != k.Size || (k.ETag != "" && o.ETag != "" && unquote(k.ETag) != unquote(o.ETag)) {
			c.Changed++
			for _, r := range g.recs {
				kept[r.Tag] = true
			}
			return nil
		}
		for _, r := range g.recs {
			if err := doomed.Add(spill.Record{Key: r.Key, Size: k.Size, Tag: r.Tag}); err != nil {
				return err
			}
		}
		c.Deleted++
		c.Bytes += k.Size
		return nil
	})
	if err != nil {
		return fmt.Errorf("list %s (nothing deleted): %w", list, err)
	}
	for g.ok {
		c.Gone++
		g.next()
	}
	return m.Err()
}

// groups reads sorted records a key at a time.
type groups struct {
	m       *spill.Merger
	recs    []spill.Record // the current key's records
	ok      bool           // recs holds a key
	pending spill.Record   // the next key's first record, read ahead
	has     bool
}

func (g *groups) key() string { return g.recs[0].Key }

func (g *groups) next() {
	g.recs = g.recs[:0]
	if !g.has {
		g.pending, g.has = g.m.Next()
	}
	if !g.has {
		g.ok = false
		return
	}
	g.recs = append(g.recs, g.pending)
	for {
		g.pending, g.has = g.m.Next()
		if !g.has || g.pending.Key != g.recs[0].Key {
			break
		}
		g.recs = append(g.recs, g.pending)
	}
	g.ok = true
}

// maxErrors bounds the delete errors Clean returns one by one; the rest
// are counted.
const maxErrors = 10

// deleteDoomed deletes the doomed keys, storage.MaxBatchDelete a request
// where the store deletes in batches, and undoes the count of each one
// that could not be deleted, keeping every manifest naming it.
func deleteDoomed(ctx context.Context, st storage.Store, doomed *spill.Sorter, kept []bool, c *Cleaned) []error {
	m, err := doomed.Open()
	if err != nil {
		return []error{err}
	}
	defer func() { _ = m.Close() }()
	var failed []error
	more := 0
	fail := func(grp []spill.Record, err error) {
		c.Deleted--
		c.Bytes -= grp[0].Size
		for _, r := range grp {
			kept[r.Tag] = true
		}
		if len(failed) < maxErrors {
			failed = append(failed, err)
		} else {
			more++
		}
	}
	var batch [][]spill.Record
	g := &groups{m: m}
	for g.next(); ; g.next() {
		if g.ok {
			batch = append(batch, append([]spill.Record(nil), g.recs...))
		}
		if len(batch) == storage.MaxBatchDelete || (!g.ok && len(batch) > 0) {
			deleteBatch(ctx, st, batch, fail)
			batch = batch[:0]
		}
		if !g.ok {
			break
		}
	}
	if err := m.Err(); err != nil {
		failed = append(failed, err)
	}
	if more > 0 {
		failed = append(failed, fmt.Errorf("and %d more objects not deleted", more))
	}
	return failed
}

// deleteBatch deletes one batch of keys, each a group of records of one
// key, and calls fail for each key not deleted.
func deleteBatch(ctx context.Context, st storage.Store, batch [][]spill.Record, fail func([]spill.Record, error)) {
	bd, ok := st.(storage.BatchDeleter)
	if !ok || len(batch) == 1 {
		for _, grp := range batch {
			key := grp[0].Key
			err := retry.Do(ctx, retry.Around(6), func() error { return st.Delete(ctx, key) })
			if err != nil && !errors.Is(err, storage.ErrNotFound) {
				fail(grp, fmt.Errorf("delete %s: %w", key, err))
			}
		}
		return
	}
	ids := make([]storage.ObjectID, len(batch))
	for i, grp := range batch {
		ids[i] = storage.ObjectID{Key: grp[0].Key}
	}
	var refused []storage.DeleteError
	err := retry.Do(ctx, retry.Around(6), func() error {
		var err error
		refused, err = bd.DeleteObjects(ctx, ids)
		return err
	})
	if err != nil {
		for _, grp := range batch {
			fail(grp, fmt.Errorf("delete %s: %w", grp[0].Key, err))
		}
		return
	}
	byKey := map[string][]spill.Record{}
	for _, grp := range batch {
		byKey[grp[0].Key] = grp
	}
	for i := range refused {
		if e := &refused[i]; !e.Gone() {
			if grp, ok := byKey[e.Key]; ok {
				fail(grp, e)
			}
		}
	}
}
