package storage

import (
	"context"
	"fmt"
	"io"
	"time"
)

// Store is an object store addressed by key. Keys are relative to the store's
// root (an S3 bucket, a directory). Implementations are safe for concurrent use.
type Store interface {
	// Put stores size bytes read from body under key, replacing what was there.
	Put(ctx context.Context, key string, body io.Reader, size int64, o PutOptions) (ObjectInfo, error)
	// Get writes the object (or o.Range of it) to w and returns the bytes written.
	Get(ctx context.Context, key string, o GetOptions, w io.Writer) (int64, error)
	// Stat returns the object's metadata (S3 HEAD).
	Stat(ctx context.Context, key string) (ObjectInfo, error)
	// Delete removes key. Deleting a missing key is not an error (S3 semantics).
	Delete(ctx context.Context, key string) error
	// List calls fn for every object whose key starts with prefix, in key order.
	// A non-nil error from fn stops the listing and is returned.
	List(ctx context.Context, prefix string, fn func(ObjectInfo) error) error
}

// ObjectInfo describes one stored object.
type ObjectInfo struct {
	Key     string
	Size    int64
	ETag    string
	ModTime time.Time
	// VersionID is the version a write made or a read found, in a
	// versioned bucket ("" elsewhere).
	VersionID string
	// DeleteMarker says a delete made (or found) a delete marker.
	DeleteMarker bool
}

// PutOptions tunes one Put. The zero value is a plain upload.
type PutOptions struct {
	Trace *Trace // optional
	// Fsync asks file stores to flush the file to stable storage before returning.
	Fsync bool
	// Checksum has the payload's checksum sent for the target to verify.
	// Computed before sending (sent in a header) it needs a seekable body
	// (io.Seeker): the payload is read twice; with ChecksumTrailer it is
	// computed while sending and sent after the body (aws-chunked, as the
	// AWS SDKs send it by default). A target that does not confirm it
	// fails the op with ErrNotImplemented.
	Checksum        Checksum
	ChecksumTrailer bool
	// IfNoneMatch "*" creates the object only if the key is free, and
	// IfMatch replaces it only if it still has this ETag (compare and
	// swap); when the condition does not hold the op fails with
	// ErrPreconditionFailed and nothing is written.
	IfNoneMatch, IfMatch string
	// Encryption asks for server-side encryption (nil: the target's
	// default). The target must confirm it, else ErrNotImplemented.
	Encryption *Encryption
	// Tagging is the object's tags as x-amz-tagging takes them,
	// URL-query encoded ("team=a&env=b": url.Values.Encode()).
	Tagging string
	// Metadata is user metadata, sent as x-amz-meta-<name> headers.
	Metadata map[string]string
	// StorageClass is the class to store the object in ("": the
	// target's standard one).
	StorageClass string
}

// Range selects Length bytes starting at Offset. Length < 0 means "to the end".
type Range struct {
	Offset, Length int64
}

// Resolve applies r to an object of size bytes the way S3 does: a nil
// range is the whole object, a range running past the end is cut at the
// end, one starting beyond it is an error.
func (r *Range) Resolve(size int64) (off, n int64, err error) {
	if r == nil {
		return 0, size, nil
	}
	if r.Offset < 0 || r.Offset > size {
		return 0, 0, fmt.Errorf("range offset %d outside the object's %d bytes", r.Offset, size)
	}
	n = r.Length
	if n < 0 || r.Offset+n > size {
		n = size - r.Offset
	}
	return r.Offset, n, nil
}

// GetOptions tunes one Get. The zero value is a plain read.
type GetOptions struct {
	Range *Range // nil reads the whole object
	Trace *Trace // optional
	// VerifyChecksum asks for the object's stored checksum and checks the
	// body against it: a mismatch is ErrChecksum, no checksum returned
	// ErrNotImplemented. A multipart object's composite checksum (of its
	// parts) cannot be checked from the body and is skipped, as the AWS
	// SDKs skip it. Whole objects only: not with Range.
	VerifyChecksum bool
	// IfNoneMatch (an ETag) reads the object only if it changed: one that
	// still has it fails with ErrNotModified, nothing transferred.
	// IfMatch reads it only if it still has this ETag, else
	// ErrPreconditionFailed.
	IfNoneMatch, IfMatch string
	// VersionID reads this version of the object (a versioned bucket).
	VersionID string
	// Encryption holds the SSE-C key of an object stored with one.
	Encryption *Encryption
}

// Part identifies one uploaded part of a multipart upload.
type Part struct {
	Number int
	ETag   string
	Size   int64
	// Checksum is the part's checksum (base64) when it was uploaded with
	// one, of algorithm ChecksumAlgorithm; completing the upload names it.
	Checksum          string
	ChecksumAlgorithm Checksum
}

// Multiparter is implemented by stores that upload large objects in parts.
type Multiparter interface {
	CreateMultipart(ctx context.Context, key string) (uploadID string, err error)
	// UploadPart uploads part number n (1-based) of size bytes.
	UploadPart(ctx context.Context, key, uploadID string, n int, body io.Reader, size int64, o PutOptions) (Part, error)
	CompleteMultipart(ctx context.Context, key, uploadID string, parts []Part) (ObjectInfo, error)
	AbortMultipart(ctx context.Context, key, uploadID string) error
}

// BucketManager is implemented by stores whose root container can be created
// and removed (an S3 bucket).
type BucketManager interface {
	// CreateBucket creates the store's bucket; it is not an error if the
	// bucket already exists and is owned by the caller.
	CreateBucket(ctx context.Context) error
	// DeleteBucket removes the store's (empty) bucket.
	DeleteBucket(ctx context.Context) error
	// BucketExists reports whether the bucket exists and is reachable with
	// the store's credentials; a failure to ask is an error.
	BucketExists(ctx context.Context) (bool, error)
}

// Syncer is implemented by stores that can flush everything written to them
// to stable storage at once (a file system's syncfs): fsync "at end".
type Syncer interface {
	Sync(ctx context.Context) error
}

// CacheDropper is implemented by stores whose reads may come from a cache
// on the client (a file system's page cache): DropCache drops what it holds
// of key, so that the next read of it goes to the storage (a checkpoint
// read back after it was written).
type CacheDropper interface {
	DropCache(ctx context.Context, key string) error
}

// Clock is a store that can say what time it is where it runs (an HTTP
// store: its Date header, to the second), for workers on several machines
// to agree on instants.
type Clock interface {
	ServerTime(ctx context.Context) (sent, received, server time.Time, err error)
}
