package fs

import (
	"context"
	"errors"
	iofs "io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/objbench/objbench/storage"
)

// List calls fn for every regular file whose key starts with prefix, in
// lexical key order. It starts at the deepest directory the prefix names
// completely and descends only into directories that can hold matches.
func (s *Store) List(ctx context.Context, prefix string, fn func(storage.ObjectInfo) error) error {
	if err := ctx.Err(); err != nil {
		return opErr("list", prefix, err)
	}
	dirKey := ""
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		dirKey = prefix[:i+1]
		if !iofs.ValidPath(dirKey[:i]) {
			return nil // no valid key lies under it
		}
	}
	dir := filepath.Join(s.root, filepath.FromSlash(dirKey))
	return s.walk(ctx, dir, dirKey, prefix, fn)
}

// entry is a directory entry with the name it sorts by in key order: a
// directory sorts as "name/", so "b-x" < "b/c" < "b0" comes out right.
type entry struct {
	sortName string
	iofs.DirEntry
}

func (s *Store) walk(ctx context.Context, dir, dirKey, prefix string, fn func(storage.ObjectInfo) error) error {
	des, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(notFound(err), storage.ErrNotFound) {
			return nil // removed meanwhile, or never there: nothing to list
		}
		return opErr("list", prefix, err)
	}
	entries := make([]entry, 0, len(des))
	for _, de := range des {
		name := de.Name()
		if de.IsDir() {
			name += "/"
		}
		entries = append(entries, entry{name, de})
	}
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.sortName, b.sortName) })
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return opErr("list", prefix, err)
		}
		key := dirKey + e.sortName
		if e.IsDir() {
			if !strings.HasPrefix(key, prefix) && !strings.HasPrefix(prefix, key) {
				continue
			}
			if err := s.walk(ctx, filepath.Join(dir, e.Name()), key, prefix, fn); err != nil {
				return err
			}
			continue
		}
		if !e.Type().IsRegular() || !strings.HasPrefix(key, prefix) {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			if errors.Is(err, iofs.ErrNotExist) {
				continue // deleted since ReadDir
			}
			return opErr("list", prefix, err)
		}
		if err := fn(storage.ObjectInfo{Key: key, Size: fi.Size(), ModTime: fi.ModTime()}); err != nil {
			return err
		}
	}
	return nil
}
