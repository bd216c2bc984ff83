// Package corpus reads real data sets to upload as objects: every file of a
// directory tree (a maildir, a source tree) or every blob of a git
// repository (a public-inbox archive holds one email per blob). Real
// corpora have the size mix and the compressibility that generated data
// only imitates.
package corpus

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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

// Corpus is a listed corpus: its items' names and sizes, their bytes read
// on demand (Item.Open). Close it when done: a git corpus keeps one `git
// cat-file --batch` process to read blobs through.
type Corpus struct {
	Items []Item
	git   *gitBlobs
}

// Close ends the corpus's reader process, if any; items opened after it
// fail.
func (c *Corpus) Close() error {
	if c == nil || c.git == nil {
		return nil
	}
	return c.git.close()
}

// Bytes is the items' total size.
func (c *Corpus) Bytes() int64 { return TotalBytes(c.Items) }

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

// Load lists the corpus that source names, "dir:PATH" or "git:PATH", at
// most max items (0: all of them). Only names and sizes are held; close
// the corpus when done.
func Load(ctx context.Context, source string, max int) (*Corpus, error) {
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

// FromDir lists the regular files under dir in lexical order (symlinks are
// not followed), at most max of them (0: all). Empty files count: they are
// objects too.
func FromDir(dir string, max int) (*Corpus, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	var items []Item
	errEnough := errors.New("enough")
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		items = append(items, Item{Name: filepath.ToSlash(rel), Size: info.Size(), Path: p})
		if max > 0 && len(items) >= max {
			return errEnough
		}
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		return nil, err
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("%s holds no files", dir)
	}
	return &Corpus{Items: items}, nil
}

// FromGit lists the blobs of the git repository at repo (a work tree or
// a bare repository), ordered by id, at most max of them (0: all). It runs
// the git command; every blob in the object store counts, reachable from
// a branch or not. Blobs are read when opened, through one `git cat-file
// --batch` process the corpus keeps until Close: memory holds the list
// (name and size), never the corpus.
func FromGit(ctx context.Context, repo string, max int) (*Corpus, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, fmt.Errorf("git:%s needs the git command (apt-get install git): %w", repo, err)
	}
	cmd := exec.CommandContext(ctx, "git", "-C", repo, "cat-file", "--batch-all-objects", "--batch-check=%(objecttype) %(objectname) %(objectsize)")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	items, listErr := listBlobs(bufio.NewReaderSize(stdout, 64<<10), max)
	_, _ = io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("git:%s: git cat-file: %w: %s", repo, err, strings.TrimSpace(stderr.String()))
	}
	if listErr != nil {
		return nil, listErr
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("git:%s holds no blobs", repo)
	}
	g, err := startBlobs(repo)
	if err != nil {
		return nil, err
	}
	for i := range items {
		items[i].git = g
	}
	return &Corpus{Items: items, git: g}, nil
}

// listBlobs reads `git cat-file --batch-check` lines: the blobs' ids and
// sizes, at most max (0: all).
func listBlobs(r *bufio.Reader, max int) ([]Item, error) {
	var items []Item
	for {
		line, err := r.ReadString('\n')
		if f := strings.Fields(line); len(f) == 3 && f[0] == "blob" {
			size, perr := strconv.ParseInt(f[2], 10, 64)
			if perr != nil {
				return nil, fmt.Errorf("git cat-file: bad line %q", line)
			}
			items = append(items, Item{Name: f[1], Size: size})
			if max > 0 && len(items) >= max {
				return items, nil
			}
		}
		if err == io.EOF {
			return items, nil
		}
		if err != nil {
			return nil, err
		}
	}
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

// TotalBytes is the items' total size.
func TotalBytes(items []Item) int64 {
	var n int64
	for _, it := range items {
		n += it.Size
	}
	return n
}
