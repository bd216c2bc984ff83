package storage

import (
	"context"
	"fmt"
)

// MaxBatchDelete is the most objects one DeleteObjects request takes (S3's
// limit).
const MaxBatchDelete = 1000

// ObjectID names an object, or one version of it, to delete.
type ObjectID struct {
	Key       string
	VersionID string // "": the object (a delete marker in a versioned bucket)
}

// DeleteError is one object a batch delete did not delete, as the target
// said why.
type DeleteError struct {
	Key, VersionID string
	Code, Message  string
}

func (e *DeleteError) Error() string {
	v := ""
	if e.VersionID != "" {
		v = " version " + e.VersionID
	}
	return fmt.Sprintf("delete %s%s: %s: %s", e.Key, v, e.Code, e.Message)
}

// BatchDeleter is implemented by stores that delete many objects in one
// request (S3 DeleteObjects).
type BatchDeleter interface {
	// DeleteObjects deletes up to MaxBatchDelete objects in one request.
	// failed lists the ones the target did not delete, each with its
	// reason; err is a failure of the request as a whole (then nothing
	// can be said of any object). Missing objects count as deleted.
	DeleteObjects(ctx context.Context, objs []ObjectID) (failed []DeleteError, err error)
}

// deleteBatches deletes versions in batches of MaxBatchDelete, and says
// how many went.
func deleteBatches(ctx context.Context, bd BatchDeleter, all []ObjectVersion) (int, error) {
	ids := make([]ObjectID, 0, min(len(all), MaxBatchDelete))
	deleted := 0
	var failed []DeleteError
	for start := 0; start < len(all); start += MaxBatchDelete {
		ids = ids[:0]
		for _, o := range all[start:min(start+MaxBatchDelete, len(all))] {
			ids = append(ids, ObjectID{Key: o.Key, VersionID: o.VersionID})
		}
		f, err := bd.DeleteObjects(ctx, ids)
		if err != nil {
			return deleted, err
		}
		deleted += len(ids) - len(f)
		failed = append(failed, f...)
	}
	if len(failed) > 0 {
		return deleted, fmt.Errorf("storage: %d of %d versions not deleted, the first: %w", len(failed), len(all), &failed[0])
	}
	return deleted, nil
}
