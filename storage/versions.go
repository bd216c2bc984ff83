package storage

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// StatOptions tunes one StatWith. The zero value is a plain Stat.
type StatOptions struct {
	Trace     *Trace // optional
	VersionID string // this version ("": the latest)
	// IfNoneMatch and IfMatch are conditions as in GetOptions.
	IfNoneMatch, IfMatch string
	// Encryption holds the SSE-C key of an object stored with one.
	Encryption *Encryption
	// Details, when set, receives what the target says of the object
	// beyond ObjectInfo (encryption, class, metadata, tag count).
	Details *ObjectDetails
}

// DeleteOptions tunes one DeleteWith. The zero value is a plain Delete.
type DeleteOptions struct {
	Trace *Trace // optional
	// VersionID removes this version for good. Without it, a versioned
	// bucket keeps the object's versions and adds a delete marker.
	VersionID string
}

// OptionStore is implemented by stores whose Stat and Delete take
// options (a version, conditions, a trace).
type OptionStore interface {
	StatWith(ctx context.Context, key string, o StatOptions) (ObjectInfo, error)
	// DeleteWith returns what the delete made or removed: its VersionID,
	// and DeleteMarker when that is a delete marker.
	DeleteWith(ctx context.Context, key string, o DeleteOptions) (ObjectInfo, error)
}

// ObjectVersion is one entry of a version listing: a version of an
// object, or a delete marker (DeleteMarker set, no size or ETag).
type ObjectVersion struct {
	ObjectInfo
	IsLatest bool
}

// Versioning states of a bucket.
const (
	VersioningOff       = ""          // never enabled
	VersioningEnabled   = "Enabled"   // every write keeps the previous version
	VersioningSuspended = "Suspended" // enabled once; writes replace the null version
)

// Versioner is implemented by stores whose bucket can keep every version
// of its objects (S3 versioning).
type Versioner interface {
	// SetVersioning enables versioning on the store's bucket, or
	// suspends it (it cannot be turned off once enabled).
	SetVersioning(ctx context.Context, enabled bool) error
	// Versioning is the bucket's state: VersioningOff, Enabled or Suspended.
	Versioning(ctx context.Context) (string, error)
	// ListVersions calls fn for every version and delete marker of the
	// keys under prefix, in key order and newest first within a key. A
	// non-nil error from fn stops the listing and is returned.
	ListVersions(ctx context.Context, prefix string, fn func(ObjectVersion) error) error
}

// DeleteVersionsUnder removes every version and delete marker of the keys
// under prefix (a run's namespace) and returns how many it removed. It
// lists everything first and checks every listed key against prefix: a
// key outside it makes the listing untrustworthy, and then nothing is
// deleted and the error is a *StrayKeysError (ErrListingFault); so too
// for a key with a segment a path normalisation would change (CheckKeyPath),
// whose DELETE a proxy could send to another key. st must
// implement Versioner and OptionStore.
func DeleteVersionsUnder(ctx context.Context, st Store, prefix string) (int, error) {
	v, ok1 := st.(Versioner)
	os, ok2 := st.(OptionStore)
	if !ok1 || !ok2 {
		return 0, fmt.Errorf("%w: the store keeps no versions", ErrNotImplemented)
	}
	if prefix == "" {
		return 0, errors.New("storage: refusing to delete the versions of a whole bucket: give the run's prefix")
	}
	var (
		all   []ObjectVersion
		stray *StrayKeysError
	)
	err := v.ListVersions(ctx, prefix, func(o ObjectVersion) error {
		if !strings.HasPrefix(o.Key, prefix) {
			if stray == nil {
				stray = &StrayKeysError{Prefix: prefix, First: o.Key}
			}
			stray.Stray++
			return nil
		}
		if o.VersionID == "" {
			return fmt.Errorf("storage: version listing of %q has an entry without a version id", o.Key)
		}
		if err := CheckKeyPath(o.Key); err != nil { // the rule the plain cleanup keeps
			return fmt.Errorf("%w: the version listing of %q holds %q, which a proxy could send elsewhere (%v): nothing is deleted",
				ErrListingFault, prefix, o.Key, err)
		}
		all = append(all, o)
		return nil
	})
	switch {
	case err != nil:
		return 0, err
	case stray != nil:
		return 0, stray
	}
	if bd, ok := st.(BatchDeleter); ok {
		return deleteBatches(ctx, bd, all)
	}
	for i, o := range all {
		if _, err := os.DeleteWith(ctx, o.Key, DeleteOptions{VersionID: o.VersionID}); err != nil {
			return i, err
		}
	}
	return len(all), nil
}
