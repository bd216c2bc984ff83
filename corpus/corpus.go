// Package corpus reads real data sets to upload as objects: every file of a
// directory tree (a maildir, a source tree) or every blob of a git
// repository (a public-inbox archive holds one email per blob). Real
// corpora have the size mix and the compressibility that generated data
// only imitates.
package corpus

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/objbench/objbench/internal/spill"
)

// Item is one object of a corpus: its name and size. Its bytes are read
// when it is opened, never held by the corpus.
type Item struct {
	// Name is the object's key below the upload prefix: the path relative
	// to the directory (slash-separated), or the blob's id.
	Name string
	Size int64
	// Path is the file holding the bytes (directory corpora).
	Path string
	git  *gitBlobs // the repository serving a blob's bytes
}

// Bytes is one item's content, open for reading from the start. It reads
// at offsets and seeks, so a retried request can send it again.
type Bytes interface {
	io.ReadSeekCloser
	io.ReaderAt
}

// Open returns the item's bytes. A file is opened (and must still be of
// its listed size); a git blob is read from the repository into memory
// for as long as the caller holds it. Close it when done.
func (it Item) Open() (Bytes, error) {
	if it.git != nil {
		b, err := it.git.read(it.Name, it.Size)
		if err != nil {
			return nil, err
		}
		return nopCloser{bytes.NewReader(b)}, nil
	}
	return OpenSized(it.Path, it.Size)
}

// Corpus is a real corpus, counted when opened: how many items, how many
// bytes, the smallest and largest. Its items are handed out one at a time
// (Each), in key order, as often as asked, so memory never holds the list:
// a directory's names are sorted on disk (internal/spill), a repository's
// blobs are listed again by git, already in id order. Item bytes are read
// on demand (Item.Open). Close it when done: a git corpus keeps one `git
// cat-file --batch` process to read blobs through, a directory corpus its
// sorted names in a temporary file.
type Corpus struct {
	source string
	stats  Stats
	// A directory corpus: its root and its items, sorted by name.
	dir    string
	sorted *spill.Sorter
	// A git corpus: its repository and the process that reads blobs.
	repo string
	git  *gitBlobs
}

// Stats count a corpus's items.
type Stats struct {
	Objects  int64
	Bytes    int64
	Min, Max int64 // the smallest and the largest item's size
}

func (s *Stats) add(size int64) {
	if s.Objects == 0 || size < s.Min {
		s.Min = size
	}
	s.Max = max(s.Max, size)
	s.Objects++
	s.Bytes += size
}

// Stats is what Open counted.
func (c *Corpus) Stats() Stats { return c.stats }

// Len is how many items the corpus has.
func (c *Corpus) Len() int64 { return c.stats.Objects }

// Bytes is the items' total size.
func (c *Corpus) Bytes() int64 { return c.stats.Bytes }

// Each calls fn with every item in key order (a directory's paths, a
// repository's blob ids, byte by byte), and stops at fn's first error. The
// items are the ones Open counted: a corpus that changed since (a blob
// more or less in the repository) is an error.
func (c *Corpus) Each(ctx context.Context, fn func(Item) error) error {
	var got Stats
	each := func(it Item) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if got.Objects == c.stats.Objects {
			return fmt.Errorf("%s changed since it was listed: more than its %d items", c.source, c.stats.Objects)
		}
		got.add(it.Size)
		return fn(it)
	}
	var err error
	if c.git != nil {
		err = listBlobs(ctx, c.repo, int(c.stats.Objects), func(id string, size int64) error {
			return each(Item{Name: id, Size: size, git: c.git})
		})
	} else {
		err = c.eachDir(each)
	}
	if err == nil && got != c.stats {
		err = fmt.Errorf("%s changed since it was listed: %d items of %d bytes, then %d of %d", c.source,
			c.stats.Objects, c.stats.Bytes, got.Objects, got.Bytes)
	}
	return err
}

// List collects the items: for small corpora only (tests, a few objects).
func (c *Corpus) List(ctx context.Context) ([]Item, error) {
	var items []Item
	err := c.Each(ctx, func(it Item) error { items = append(items, it); return nil })
	return items, err
}

// Close ends the corpus's reader process and removes its temporary files;
// items opened after it fail.
func (c *Corpus) Close() error {
	if c == nil {
		return nil
	}
	var err error
	if c.sorted != nil {
		err = c.sorted.Close()
	}
	if c.git != nil {
		err = errors.Join(err, c.git.close())
	}
	return err
}

// OpenSized opens the file at path, which must still be size bytes long:
// a file that changed since it was listed would upload other bytes than
// were planned.
func OpenSized(path string, size int64) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || st.Size() != size {
		_ = f.Close()
		if err == nil {
			err = fmt.Errorf("%s changed size since it was listed (%d, now %d bytes)", path, size, st.Size())
		}
		return nil, err
	}
	return f, nil
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

// Source kinds, as written in a key space's source and in flags.
const (
	DirPrefix = "dir:"
	GitPrefix = "git:"
)

// Open counts the corpus that source names, "dir:PATH" or "git:PATH", at
// most max items (0: all of them): the first ones in key order. Close it
// when done.
func Open(ctx context.Context, source string, max int) (*Corpus, error) {
	if p, ok := strings.CutPrefix(source, DirPrefix); ok {
		return FromDir(p, max)
	}
	if p, ok := strings.CutPrefix(source, GitPrefix); ok {
		return FromGit(ctx, p, max)
	}
	return nil, fmt.Errorf("bad corpus source %q: want dir:PATH or git:PATH", source)
}

// Check reports whether source names a readable corpus without reading its
// contents: the directory exists, the repository is one.
func Check(ctx context.Context, source string) error {
	if err := CheckSource(source); err != nil {
		return err
	}
	if p, ok := strings.CutPrefix(source, DirPrefix); ok {
		st, err := os.Stat(p)
		if err == nil && !st.IsDir() {
			err = fmt.Errorf("%s is not a directory", p)
		}
		return err
	}
	p := strings.TrimPrefix(source, GitPrefix)
	if _, err := exec.LookPath("git"); err != nil {
		return fmt.Errorf("%s needs the git command (apt-get install git): %w", source, err)
	}
	_, err := gitOutput(ctx, p, "rev-parse", "--git-dir")
	return err
}

// CheckSource reports whether source is well-formed, without reading it.
func CheckSource(source string) error {
	for _, pre := range []string{DirPrefix, GitPrefix} {
		if p, ok := strings.CutPrefix(source, pre); ok {
			if p == "" {
				return fmt.Errorf("bad corpus source %q: the path is missing", source)
			}
			return nil
		}
	}
	return fmt.Errorf("bad corpus source %q: want dir:PATH or git:PATH", source)
}

func gitOutput(ctx context.Context, repo string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", repo}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git:%s: git %s: %w: %s", repo, args[0], err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
