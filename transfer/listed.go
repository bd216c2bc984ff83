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
	limit  int64  // the first limit items only (0: all)
	stats  listedStats
	err    error // reading the spill back failed while counting (each returns it)
}

type listedStats struct{ n, bytes, min, max int64 }

func (s *listedStats) add(size int64) {
	if s.n == 0 || size < s.min {
		s.min = size
	}
	s.n, s.bytes, s.max = s.n+1, s.bytes+size, max(s.max, size)
}

func newListedItems(prefix, dir string) *listedItems {
	return &listedItems{s: spill.New("", 0), prefix: prefix, dir: dir}
}

func (l *listedItems) add(key string, size int64) error {
	l.stats.add(size)
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
		if l.limit > 0 && n >= l.limit {
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

// setLimit keeps the first n items (key order) and counts them again.
func (l *listedItems) setLimit(n int) {
	if n <= 0 || int64(n) >= l.stats.n {
		return
	}
	l.limit, l.stats = int64(n), listedStats{}
	l.err = l.each(context.Background(), func(it Item) error {
		l.stats.add(it.Size)
		return nil
	})
}
