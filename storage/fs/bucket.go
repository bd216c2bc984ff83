package fs

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/objbench/objbench/storage"
)

var _ storage.BucketManager = (*BucketStore)(nil)

// BucketStore is a Store in one subdirectory of a parent directory, so
// workloads that name buckets run on a file system too: a bucket is a
// directory, created and removed like one.
type BucketStore struct {
	*Store
	dir string
}

// NewBucket returns the store of bucket name under parent, which must be
// an existing directory; the bucket's directory need not exist yet.
func NewBucket(parent, name string, o Options) (*BucketStore, error) {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		return nil, fmt.Errorf("bucket name %q cannot be a directory name", name)
	}
	abs, err := filepath.Abs(parent)
	if err != nil {
		return nil, fmt.Errorf("fs store root %q: %w", parent, err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("fs store root %q is not a directory", parent)
	}
	dir := filepath.Join(abs, name)
	return &BucketStore{Store: newStore(dir, o), dir: dir}, nil
}

// CreateBucket makes the bucket's directory; one that exists is fine.
func (b *BucketStore) CreateBucket(ctx context.Context) error {
	if err := os.Mkdir(b.dir, 0o755); err != nil && !errors.Is(err, iofs.ErrExist) {
		return opErr("create-bucket", filepath.Base(b.dir), err)
	}
	return nil
}

// DeleteBucket removes the bucket's directory, which must be empty.
func (b *BucketStore) DeleteBucket(ctx context.Context) error {
	if err := os.Remove(b.dir); err != nil {
		return opErr("delete-bucket", filepath.Base(b.dir), err)
	}
	return nil
}

// BucketExists reports whether the bucket's directory exists.
func (b *BucketStore) BucketExists(ctx context.Context) (bool, error) {
	fi, err := os.Stat(b.dir)
	switch {
	case errors.Is(err, iofs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, opErr("bucket-exists", filepath.Base(b.dir), err)
	}
	return fi.IsDir(), nil
}
