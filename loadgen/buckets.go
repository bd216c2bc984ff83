package loadgen

import (
	"context"
	"fmt"
	"time"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/workload"
)

// A run's buckets: an init stage creates those missing, and a dispose
// stage removes only those this run created, once nothing else is in
// them (runStores.created).

// bucketRef is a bucket at a storage (nil: the target's).
type bucketRef struct {
	st   *workload.Storage
	name string
}

// bucketRefs are the buckets an init or dispose stage handles: those its
// streams name, or every bucket of the workload when it has none.
func bucketRefs(sp workload.Spec, st workload.Stage) []bucketRef {
	streams := st.Streams
	if len(streams) == 0 {
		for _, s := range sp.Stages {
			streams = append(streams, s.Streams...)
		}
	}
	seen := map[string]bool{}
	var out []bucketRef
	add := func(s workload.Stream, ks workload.KeySpace) {
		for _, b := range ks.Buckets {
			if k := storeKey(s.Storage, b); !seen[k] {
				seen[k] = true
				out = append(out, bucketRef{s.Storage, b})
			}
		}
	}
	for _, s := range streams {
		add(s, s.Objects)
		for _, m := range s.Mix {
			add(s, s.OpObjects(m))
		}
	}
	return out
}

// manager is the bucket-level side of b's store.
func (rs *runStores) manager(ctx context.Context, b bucketRef) (storage.BucketManager, error) {
	s, err := rs.bucket(ctx, b.st, b.name)
	if err != nil {
		return nil, err
	}
	bm, ok := s.(storage.BucketManager)
	if !ok {
		return nil, fmt.Errorf("bucket %s: this target cannot create or remove buckets", b.name)
	}
	return bm, nil
}

// initBuckets creates the stage's buckets that do not exist yet and
// remembers which, so that dispose removes only those.
func (r *runState) initBuckets(ctx context.Context, st workload.Stage) (result.Step, error) {
	res := result.Step{Stage: st.Name, Kind: string(st.Kind), Start: time.Now()}
	for _, b := range bucketRefs(r.cfg.Spec, st) {
		bm, err := r.stores.manager(ctx, b)
		if err != nil {
			return res, fmt.Errorf("init: %w", err)
		}
		exists, err := bm.BucketExists(ctx)
		if err != nil {
			return res, fmt.Errorf("init: bucket %s: %w", b.name, err)
		}
		switch k := storeKey(b.st, b.name); {
		case exists && r.stores.created[k]:
			res.Notes = append(res.Notes, fmt.Sprintf("bucket %s was created earlier in this run", b.name))
			continue
		case exists:
			res.Notes = append(res.Notes, fmt.Sprintf("bucket %s exists: used as it is, and never removed by this run", b.name))
			continue
		}
		if err := bm.CreateBucket(ctx); err != nil {
			return res, fmt.Errorf("init: create bucket %s: %w", b.name, err)
		}
		r.stores.created[storeKey(b.st, b.name)] = true
		res.Notes = append(res.Notes, "created bucket "+b.name)
		if note, err := r.stores.enableVersioning(ctx, b); err != nil {
			return res, err
		} else if note != "" {
			res.Notes = append(res.Notes, note)
		}
	}
	res.Elapsed = time.Since(res.Start)
	return res, nil
}

// dispose removes the stage's buckets that this run created, and only
// those. A bucket that cannot be removed (not empty) is noted, not fatal.
func (r *runState) dispose(ctx context.Context, st workload.Stage) (result.Step, error) {
	res := result.Step{Stage: st.Name, Kind: string(st.Kind), Start: time.Now()}
	for _, b := range bucketRefs(r.cfg.Spec, st) {
		k := storeKey(b.st, b.name)
		switch {
		case r.stores.removed[k]:
			res.Notes = append(res.Notes, fmt.Sprintf("bucket %s was removed earlier in this run", b.name))
			continue
		case !r.stores.created[k]:
			res.Notes = append(res.Notes, fmt.Sprintf("kept bucket %s: this run did not create it", b.name))
			continue
		}
		bm, err := r.stores.manager(ctx, b)
		if err == nil {
			err = r.emptyOwn(ctx, b, &res)
		}
		if err == nil {
			err = bm.DeleteBucket(ctx)
		}
		if err != nil {
			res.Notes = append(res.Notes, fmt.Sprintf("could not remove bucket %s, which this run created: %v", b.name, err))
			r.ledger.leftover(fmt.Sprintf("bucket %s kept: %v", b.name, err))
			continue
		}
		delete(r.stores.created, k)
		r.stores.removed[k] = true
		res.Notes = append(res.Notes, "removed bucket "+b.name)
	}
	res.Elapsed = time.Since(res.Start)
	return res, nil
}

// emptyOwn deletes what is left of this run in bucket b (its namespace:
// what cleanup ranges did not cover) and checks that nothing else is
// there: a bucket that holds objects this run did not write is kept.
func (r *runState) emptyOwn(ctx context.Context, b bucketRef, res *result.Step) error {
	st, err := r.stores.bucket(ctx, b.st, b.name)
	if err != nil {
		return err
	}
	if r.cfg.BareKeys {
		n, err := r.deleteOwnedIn(ctx, b)
		if err != nil {
			return err
		}
		if n > 0 {
			res.Notes = append(res.Notes, fmt.Sprintf("deleted %d objects this run wrote left in bucket %s", n, b.name))
		}
	}
	l, err := listUnder(ctx, []storage.Store{st}, r.cfg.Namespace, r.cfg.Namespace, nil)
	if err != nil {
		return err
	}
	defer func() { _ = l.Close() }()
	if err := l.each(func(st storage.Store, k string) error {
		if err := deleteKey(ctx, st, k); err != nil {
			return fmt.Errorf("delete %s: %w", k, err)
		}
		return nil
	}); err != nil {
		return err
	}
	if n := l.len(); n > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("deleted %d objects of this run left in bucket %s", n, b.name))
	}
	others := 0
	first := ""
	if err := retryTransient(ctx, func() error {
		others = 0
		return st.List(ctx, "", func(o storage.ObjectInfo) error {
			if others == 0 {
				first = o.Key
			}
			others++
			return nil
		})
	}); err != nil {
		return err
	}
	if others > 0 {
		return fmt.Errorf("it holds %d objects this run did not write (first %q)", others, first)
	}
	return nil
}

// delay waits out a delay stage (an interrupt cuts it short).
func (r *runState) delay(ctx context.Context, st workload.Stage) result.Step {
	res := result.Step{Stage: st.Name, Kind: string(st.Kind), Start: time.Now()}
	if !sleep(ctx, st.Delay) {
		res.Notes = append(res.Notes, "delay cut short")
	}
	res.Elapsed = time.Since(res.Start)
	return res
}
