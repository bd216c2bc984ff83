package transfer

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/objbench/objbench/internal/spill"
)

// listedItems are a download's objects as the store listed them, kept in
// a spill (on disk past a few MiB, read back in key order), not as Items:
// a download of half a million objects holds none of them in memory.
type listedItems struct {
	s      *spill.Sorter
	prefix string // what keys are relative to
	dir    string // the destination directory, or NullDest
	max    int64  // the first max items only (0: all)
	st     sizeStats
	err    error // reading the spill back failed while counting (each returns it)
}

func newListedItems(prefix, dir string) *listedItems {
	return &listedItems{s: spill.New("", 0), prefix: prefix, dir: dir}
}

func (l *listedItems) add(key string, size int64) error {
	l.st.add(size)
	return l.s.Add(spill.Record{Key: key, Size: size})
}

// item is the Item of a listed object: its key and size, and the path it
// is downloaded to.
func (l *listedItems) item(r spill.Record) Item {
	it := Item{Key: r.Key, Size: r.Size}
	if l.dir != NullDest {
		it.Path = filepath.Join(l.dir, filepath.FromSlash(strings.TrimPrefix(r.Key, l.prefix)))
	}
	return it
}

var errEnough = errors.New("limit reached")

// each calls fn with every item in key order, and stops at fn's first
// error.
func (l *listedItems) each(ctx context.Context, fn func(Item) error) error {
	if l.err != nil {
		return l.err
	}
	var n int64
	err := l.s.Each(func(r spill.Record) error {
		if l.max > 0 && n >= l.max {
			return errEnough
		}
		if n++; n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		return fn(l.item(r))
	})
	if errors.Is(err, errEnough) {
		return nil
	}
	return err
}

func (l *listedItems) stats() sizeStats { return l.st }
func (l *listedItems) generated() bool  { return false }
func (l *listedItems) close() error     { return l.s.Close() }

// limit keeps the first n items (key order) and counts them again.
func (l *listedItems) limit(n int) {
	if int64(n) >= l.st.n {
		return
	}
	l.max, l.st = int64(n), sizeStats{}
	l.err = l.each(context.Background(), func(it Item) error {
		l.st.add(it.Size)
		return nil
	})
}
