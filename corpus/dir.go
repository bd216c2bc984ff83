package corpus

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"

	"github.com/objbench/objbench/internal/spill"
)

// dirChunk is how many entries of a directory are read at once: a maildir
// of half a million files in one folder is read a chunk at a time, never
// whole.
const dirChunk = 1024

// FromDir counts the regular files under dir (symlinks are not followed),
// at most max of them (0: all), the first in key order (their slash-separated
// paths relative to dir, byte by byte, as a listing of the uploaded
// objects returns them). Empty files count: they are objects too. The
// names are sorted on disk (in a temporary directory under tmp; "": the
// system's), so memory holds a bounded part of them.
func FromDir(dir string, max int) (*Corpus, error) {
	return fromDir(dir, max, "", 0)
}

func fromDir(dir string, max int, tmp string, runBytes int) (*Corpus, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	c := &Corpus{source: DirPrefix + dir, dir: dir, sorted: spill.New(tmp, runBytes)}
	err = walk(dir, "", func(rel string, size int64) error {
		return c.sorted.Add(spill.Record{Key: rel, Size: size})
	})
	if err == nil {
		err = c.sorted.Each(func(r spill.Record) error {
			if max > 0 && c.stats.Objects >= int64(max) {
				return errEnough
			}
			c.stats.add(r.Size)
			return nil
		})
	}
	if err != nil && !errors.Is(err, errEnough) {
		_ = c.Close()
		return nil, err
	}
	if c.stats.Objects == 0 {
		_ = c.Close()
		return nil, fmt.Errorf("%s holds no files", dir)
	}
	return c, nil
}

var errEnough = errors.New("enough")

// walk calls add for every regular file under root/rel, reading each
// directory a chunk at a time, in the order the file system gives.
func walk(root, rel string, add func(rel string, size int64) error) error {
	f, err := os.Open(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	for {
		ents, err := f.ReadDir(dirChunk)
		for _, e := range ents {
			name := path.Join(rel, e.Name())
			switch {
			case e.IsDir():
				if err := walk(root, name, add); err != nil {
					return err
				}
			case e.Type().IsRegular():
				info, err := e.Info()
				if errors.Is(err, os.ErrNotExist) {
					continue // removed since it was read
				}
				if err != nil {
					return err
				}
				if err := add(name, info.Size()); err != nil {
					return err
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// eachDir hands out a directory corpus's first c.stats.Objects items.
func (c *Corpus) eachDir(fn func(Item) error) error {
	n := int64(0)
	err := c.sorted.Each(func(r spill.Record) error {
		if n == c.stats.Objects {
			return errEnough
		}
		n++
		return fn(Item{Name: r.Key, Size: r.Size, Path: filepath.Join(c.dir, filepath.FromSlash(r.Key))})
	})
	if errors.Is(err, errEnough) {
		return nil
	}
	return err
}
