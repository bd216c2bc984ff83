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

// Gone says the object was not deleted because it was not there.
func (e *DeleteError) Gone() bool { return e.Code == "NoSuchKey" || e.Code == "NoSuchVersion" }

// BatchDeleter is implemented by stores that delete many objects in one
// request (S3 DeleteObjects).
type BatchDeleter interface {
	// DeleteObjects deletes up to MaxBatchDelete objects in one request.
	// failed lists the ones the target reported an error for, each with
	// its code and message; err is a failure of the request as a whole
	// (then nothing can be said of any object). S3 reports a missing key
	// as deleted; some targets report it (or a missing version) as
	// NoSuchKey or NoSuchVersion, which Gone recognises.
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
		deleted += len(ids)
		for _, e := range f {
			if !e.Gone() {
				deleted--
				failed = append(failed, e)
			}
		}
	}
	if len(failed) > 0 {
		return deleted, fmt.Errorf("storage: %d of %d versions not deleted, the first: %w", len(failed), len(all), &failed[0])
	}
	return deleted, nil
}

// CopyOptions tunes a server-side copy. The zero value copies the
// source's latest version with its metadata and tags.
type CopyOptions struct {
	Trace *Trace // optional
	// SourceBucket is the source's bucket ("": the store's own).
	SourceBucket string
	// SourceVersionID copies this version of the source.
	SourceVersionID string
	// SourceEncryption holds the source's SSE-C key, if it has one.
	SourceEncryption *Encryption
	// Dest are the copy's own attributes: Encryption, StorageClass, and
	// Metadata and Tagging, which when set replace the source's
	// (otherwise they are copied). Its payload options (checksums,
	// conditions) are not used.
	Dest PutOptions
	// Range copies these bytes of the source (a part copy only).
	Range *Range
}

// Copier is implemented by stores that copy an object without its bytes
// passing through the client (S3 CopyObject).
type Copier interface {
	CopyObject(ctx context.Context, src, dst string, o CopyOptions) (ObjectInfo, error)
}

// PartCopier is implemented by stores whose multipart uploads can take a
// part from an existing object (S3 UploadPartCopy).
type PartCopier interface {
	UploadPartCopy(ctx context.Context, key, uploadID string, n int, src string, o CopyOptions) (Part, error)
}
