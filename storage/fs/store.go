package fs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/objbench/objbench/storage"
)

var _ storage.Store = (*Store)(nil)

// Options tunes a Store.
type Options struct {
	// Direct opens object files with O_DIRECT so reads and writes bypass the
	// page cache (Linux only; New fails where the file system refuses it).
	Direct bool
}

// Store is a directory holding one file per object.
type Store struct {
	root   string
	direct bool
	bufs   sync.Pool // *[]byte of bufSize (aligned to blockSize when direct)
}

const (
	bufSize   = 1 << 20
	blockSize = 4096 // O_DIRECT alignment that every Linux block device accepts
)

// New returns a Store rooted at root, which must be an existing directory.
func New(root string, o Options) (*Store, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("fs store root %q: %w", root, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("fs store root: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("fs store root %q is not a directory", root)
	}
	s := newStore(abs, o)
	if o.Direct {
		if err := probeDirect(abs); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// newStore builds a Store over abs without looking at the file system.
func newStore(abs string, o Options) *Store {
	s := &Store{root: abs, direct: o.Direct}
	s.bufs.New = func() any {
		var b []byte
		if s.direct {
			b = alignedBuf(bufSize)
		} else {
			b = make([]byte, bufSize)
		}
		return &b
	}
	return s
}

// probeDirect fails early, with a clear message, where O_DIRECT cannot work
// (another OS, tmpfs) instead of failing every operation later.
func probeDirect(dir string) error {
	if err := directSupported(); err != nil {
		return err
	}
	var rnd [8]byte
	_, _ = rand.Read(rnd[:]) // crypto/rand.Read never fails
	p := filepath.Join(dir, ".objbench-direct-probe-"+hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|oDirect, 0o600)
	if err != nil {
		return fmt.Errorf("O_DIRECT is not supported by the file system at %s: %w", dir, err)
	}
	f.Close()
	return os.Remove(p)
}

func opErr(op, key string, err error) error {
	return &storage.OpError{Op: op, Key: key, Err: err}
}

// path maps key to its file. Keys must be valid io/fs paths, which cannot be
// absolute or contain ".." elements, so no key reaches outside the root.
func (s *Store) path(key string) (string, error) {
	local, err := filepath.Localize(key)
	if err != nil {
		return "", fmt.Errorf("key %q is not a relative path under the store root "+
			"(empty, absolute, or with empty, '.' or '..' elements): %w", key, err)
	}
	return filepath.Join(s.root, local), nil
}

var _ storage.CacheDropper = (*Store)(nil)

// DropCache drops what the page cache holds of key's file (Linux; a no-op
// elsewhere).
func (s *Store) DropCache(_ context.Context, key string) error {
	p, err := s.path(key)
	if err != nil {
		return opErr("drop-cache", key, err)
	}
	if err := dropCache(p); err != nil {
		return opErr("drop-cache", key, notFound(err))
	}
	return nil
}

// notFound keeps the file system's error but makes it count as a missing
// object. ENOTDIR: a parent of the path is a file, so no object is there.
func notFound(err error) error {
	if errors.Is(err, iofs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return fmt.Errorf("%w: %w", storage.ErrNotFound, err)
	}
	return err
}

func (s *Store) flags() int {
	if s.direct {
		return oDirect
	}
	return 0
}

// Sync flushes every file written under the root to stable storage: one
// syncfs of the file system that holds it (fsync "at end").
func (s *Store) Sync(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := syncfs(s.root); err != nil {
		return fmt.Errorf("sync %s: %w", s.root, err)
	}
	return nil
}

// Put writes size bytes from body to the key's file (all of body if size < 0).
func (s *Store) Put(ctx context.Context, key string, body io.Reader, size int64, o storage.PutOptions) (storage.ObjectInfo, error) {
	if err := ctx.Err(); err != nil {
		return storage.ObjectInfo{}, opErr("put", key, err)
	}
	p, err := s.path(key)
	if err != nil {
		return storage.ObjectInfo{}, opErr("put", key, err)
	}
	f, err := s.create(p)
	if err != nil {
		return storage.ObjectInfo{}, opErr("put", key, err)
	}
	n, err := s.copyIn(ctx, f, body, size)
	if err == nil && o.Fsync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		// A truncated file would pass for an object; a failed Put leaves none.
		_ = os.Remove(p)
		return storage.ObjectInfo{}, opErr("put", key, err)
	}
	now := time.Now()
	if o.Trace != nil {
		o.Trace.FirstByte = now
	}
	return storage.ObjectInfo{Key: key, Size: n, ModTime: now}, nil
}

// create opens p for writing, making parent directories as needed. It
// retries because a concurrent Delete may remove a parent that just became
// empty between MkdirAll and OpenFile.
func (s *Store) create(p string) (*os.File, error) {
	const flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	for attempt := 0; ; attempt++ {
		f, err := os.OpenFile(p, flags|s.flags(), 0o644)
		if err == nil || !errors.Is(err, iofs.ErrNotExist) || attempt == 3 {
			return f, err
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
	}
}

// Get writes the object, or o.Range of it, to w. Trace.FirstByte is set once
// the file is open and its first block read.
func (s *Store) Get(ctx context.Context, key string, o storage.GetOptions, w io.Writer) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, opErr("get", key, err)
	}
	p, err := s.path(key)
	if err != nil {
		return 0, opErr("get", key, err)
	}
	f, err := os.OpenFile(p, os.O_RDONLY|s.flags(), 0)
	if err != nil {
		return 0, opErr("get", key, notFound(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, opErr("get", key, err)
	}
	if fi.IsDir() {
		return 0, opErr("get", key, fmt.Errorf("%w: %s is a directory", storage.ErrNotFound, p))
	}
	off, n, err := o.Range.Resolve(fi.Size())
	if err != nil {
		return 0, opErr("get", key, err)
	}
	written, err := s.copyOut(ctx, f, off, n, w, o.Trace)
	if err != nil {
		return written, opErr("get", key, err)
	}
	return written, nil
}

// Stat returns the file's size and modification time.
func (s *Store) Stat(ctx context.Context, key string) (storage.ObjectInfo, error) {
	if err := ctx.Err(); err != nil {
		return storage.ObjectInfo{}, opErr("stat", key, err)
	}
	p, err := s.path(key)
	if err != nil {
		return storage.ObjectInfo{}, opErr("stat", key, err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		return storage.ObjectInfo{}, opErr("stat", key, notFound(err))
	}
	if fi.IsDir() {
		return storage.ObjectInfo{}, opErr("stat", key, fmt.Errorf("%w: %s is a directory", storage.ErrNotFound, p))
	}
	return storage.ObjectInfo{Key: key, Size: fi.Size(), ModTime: fi.ModTime()}, nil
}

// Delete unlinks the key's file and then every parent directory it left
// empty, up to but excluding the root. A missing key is not an error.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := ctx.Err(); err != nil {
		return opErr("delete", key, err)
	}
	p, err := s.path(key)
	if err != nil {
		return opErr("delete", key, err)
	}
	if err := os.Remove(p); err != nil {
		if errors.Is(notFound(err), storage.ErrNotFound) {
			return nil
		}
		// A directory (empty or not) is not an object: nothing to delete.
		if fi, serr := os.Lstat(p); serr == nil && fi.IsDir() {
			return nil
		}
		return opErr("delete", key, err)
	}
	for dir := filepath.Dir(p); dir != s.root && len(dir) > len(s.root); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil {
			break // not empty (or already gone): its parents are not empty either
		}
	}
	return nil
}
