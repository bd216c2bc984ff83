package mem

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/objbench/objbench/storage"
)

var (
	_ storage.Store       = (*Store)(nil)
	_ storage.Multiparter = (*Store)(nil)
)

// Store keeps objects in a map. The lock is held only to look up or swap map
// entries; object bytes are never modified after they are stored, so readers
// copy them out without holding it.
type Store struct {
	mu      sync.RWMutex
	objects map[string]*object
	uploads map[string]*upload

	// seq numbers ETags and upload IDs. A counter rather than a content hash:
	// hashing would make the baseline store pay for work no caller asked for.
	seq atomic.Uint64
}

type object struct {
	data []byte
	etag string
	mod  time.Time
}

// New returns an empty Store.
func New() *Store {
	return &Store{objects: map[string]*object{}, uploads: map[string]*upload{}}
}

func (s *Store) newObject(data []byte) *object {
	return &object{data: data, etag: strconv.FormatUint(s.seq.Add(1), 16), mod: time.Now()}
}

func (o *object) info(key string) storage.ObjectInfo {
	return storage.ObjectInfo{Key: key, Size: int64(len(o.data)), ETag: o.etag, ModTime: o.mod}
}

func opErr(op, key string, err error) error {
	return &storage.OpError{Op: op, Key: key, Err: err}
}

// Put stores a copy of size bytes read from body (all of body if size < 0).
func (s *Store) Put(ctx context.Context, key string, body io.Reader, size int64, o storage.PutOptions) (storage.ObjectInfo, error) {
	if err := ctx.Err(); err != nil {
		return storage.ObjectInfo{}, opErr("put", key, err)
	}
	data, err := readBody(body, size)
	if err != nil {
		return storage.ObjectInfo{}, opErr("put", key, err)
	}
	obj := s.newObject(data)
	s.mu.Lock()
	s.objects[key] = obj
	s.mu.Unlock()
	if o.Trace != nil {
		o.Trace.FirstByte = time.Now()
	}
	return obj.info(key), nil
}

func readBody(body io.Reader, size int64) ([]byte, error) {
	if size < 0 {
		return io.ReadAll(body)
	}
	data := make([]byte, size)
	n, err := io.ReadFull(body, data)
	if err != nil {
		return nil, fmt.Errorf("body ended after %d of %d bytes: %w", n, size, err)
	}
	return data, nil
}

func (s *Store) lookup(ctx context.Context, op, key string) (*object, error) {
	if err := ctx.Err(); err != nil {
		return nil, opErr(op, key, err)
	}
	s.mu.RLock()
	obj := s.objects[key]
	s.mu.RUnlock()
	if obj == nil {
		return nil, opErr(op, key, storage.ErrNotFound)
	}
	return obj, nil
}

// Get writes the object, or o.Range of it, to w.
func (s *Store) Get(ctx context.Context, key string, o storage.GetOptions, w io.Writer) (int64, error) {
	obj, err := s.lookup(ctx, "get", key)
	if err != nil {
		return 0, err
	}
	off, n, err := o.Range.Resolve(int64(len(obj.data)))
	if err != nil {
		return 0, opErr("get", key, err)
	}
	if o.Trace != nil {
		o.Trace.FirstByte = time.Now()
	}
	written, err := w.Write(obj.data[off : off+n])
	if err != nil {
		return int64(written), opErr("get", key, err)
	}
	return int64(written), nil
}

// Stat returns the object's metadata.
func (s *Store) Stat(ctx context.Context, key string) (storage.ObjectInfo, error) {
	obj, err := s.lookup(ctx, "stat", key)
	if err != nil {
		return storage.ObjectInfo{}, err
	}
	return obj.info(key), nil
}

// Delete removes key; a missing key is not an error.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := ctx.Err(); err != nil {
		return opErr("delete", key, err)
	}
	s.mu.Lock()
	delete(s.objects, key)
	s.mu.Unlock()
	return nil
}

// List calls fn for every object under prefix in key order. It works on a
// snapshot taken under the lock, so fn may call back into the Store.
func (s *Store) List(ctx context.Context, prefix string, fn func(storage.ObjectInfo) error) error {
	if err := ctx.Err(); err != nil {
		return opErr("list", prefix, err)
	}
	var infos []storage.ObjectInfo
	s.mu.RLock()
	for k, obj := range s.objects {
		if strings.HasPrefix(k, prefix) {
			infos = append(infos, obj.info(k))
		}
	}
	s.mu.RUnlock()
	slices.SortFunc(infos, func(a, b storage.ObjectInfo) int { return strings.Compare(a.Key, b.Key) })
	for _, oi := range infos {
		if err := ctx.Err(); err != nil {
			return opErr("list", prefix, err)
		}
		if err := fn(oi); err != nil {
			return err
		}
	}
	return nil
}
