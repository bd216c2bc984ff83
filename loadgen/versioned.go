package loadgen

import (
	"context"
	"errors"
	"fmt"

	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/workload"
)

// enableVersioning turns versioning on for a bucket the init stage just
// created, when the run works in versioned buckets. Versioning is never
// touched on a bucket this run did not create.
func (rs *runStores) enableVersioning(ctx context.Context, b bucketRef) (string, error) {
	if !rs.versioned {
		return "", nil
	}
	s, err := rs.bucket(ctx, b.st, b.name)
	if err != nil {
		return "", err
	}
	v, ok := s.(storage.Versioner)
	if !ok {
		return "", fmt.Errorf("init: bucket %s: versioning: %w", b.name, storage.ErrNotImplemented)
	}
	if err := v.SetVersioning(ctx, true); err != nil {
		return "", fmt.Errorf("init: enable versioning on bucket %s: %w", b.name, err)
	}
	rs.versionedStores[s] = true
	return "versioning enabled on bucket " + b.name, nil
}

// checkVersioned fails a versioned stream whose bucket keeps no versions:
// objbench enables versioning only on a bucket its init stage creates.
func (rs *runStores) checkVersioned(ctx context.Context, sp workload.Stream, stores []storage.Store) error {
	if sp.S3 == nil || !sp.S3.Versioned {
		return nil
	}
	for _, s := range stores {
		if rs.versionedStores[s] {
			continue
		}
		v, ok := s.(storage.Versioner)
		if !ok {
			return fmt.Errorf("stream %s is versioned: %w (this store keeps no versions)", sp.Name, storage.ErrNotImplemented)
		}
		state, err := v.Versioning(ctx)
		switch {
		case errors.Is(err, storage.ErrNotImplemented):
			return fmt.Errorf("stream %s is versioned: versioning is %w", sp.Name, storage.ErrNotImplemented)
		case err != nil:
			return fmt.Errorf("stream %s is versioned: ask the bucket's versioning: %w", sp.Name, err)
		case state != storage.VersioningEnabled:
			return fmt.Errorf("stream %s is versioned, but its bucket does not keep versions: objbench enables versioning only on a bucket "+
				"its init stage creates (name one under objects: buckets:), or enable it on the bucket yourself", sp.Name)
		}
		rs.versionedStores[s] = true
	}
	return nil
}

// deleteVersions removes every version and delete marker under prefix in
// each store (storage.DeleteVersionsUnder: a listing with a key outside
// prefix deletes nothing) and says how many went. Of a run split across
// processes, worker 0 does it (or whoever cleans up for it).
func (r *runState) deleteVersions(ctx context.Context, stores []storage.Store, prefix string) (string, error) {
	if !r.ledger.worker.Solo() && !r.ledger.forRankZero() {
		return "", nil
	}
	total := 0
	for _, s := range stores {
		err := retryTransient(ctx, func() error {
			n, err := storage.DeleteVersionsUnder(ctx, s, prefix)
			total += n
			return err
		})
		if err != nil {
			return "", fmt.Errorf("cleanup: versions under %q: %w", prefix, err)
		}
	}
	return fmt.Sprintf("removed %d versions and delete markers under %s", total, prefix), nil
}

// batchSize is the keys per DeleteObjects request a cleanup stream asks
// for (its s3 batch_size), 0: single deletes.
func batchSize(sp workload.Stream) int {
	if sp.S3 == nil {
		return 0
	}
	return min(sp.S3.BatchSize, storage.MaxBatchDelete)
}
