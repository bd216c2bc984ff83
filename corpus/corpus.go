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

// Item is one object of a corpus.
type Item struct {
	// Name is the object's key below the upload prefix: the path relative
	// to the directory (slash-separated), or the blob's id.
	Name string
	Size int64
	// Path is the file holding the bytes (directory corpora); Data holds
	// them when the corpus was read into memory (git blobs).
	Path string
	Data []byte
}

// Open returns the item's bytes from the start. The reader seeks, so a
// retried request can send them again; close it when done.
func (it Item) Open() (io.ReadSeekCloser, error) {
	if it.Path == "" {
		return nopCloser{bytes.NewReader(it.Data)}, nil
	}
	return OpenSized(it.Path, it.Size)
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

// Load reads the corpus that source names, "dir:PATH" or "git:PATH", at most
// max items (0: all of them).
func Load(ctx context.Context, source string, max int) ([]Item, error) {
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
func FromDir(dir string, max int) ([]Item, error) {
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
	return items, nil
}

// MaxGitBytes bounds the blobs FromGit reads into memory.
const MaxGitBytes = 4 << 30

// FromGit reads the blobs of the git repository at repo (a work tree or a
// bare repository), ordered by id, at most max of them (0: all), into
// memory. It runs the git command; every blob in the object store counts,
// reachable from a branch or not.
func FromGit(ctx context.Context, repo string, max int) ([]Item, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, fmt.Errorf("git:%s needs the git command (apt-get install git): %w", repo, err)
	}
	out, err := gitOutput(ctx, repo, "cat-file", "--batch-all-objects", "--batch-check=%(objecttype) %(objectname) %(objectsize)")
	if err != nil {
		return nil, err
	}
	var items []Item
	var total int64
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) != 3 || f[0] != "blob" {
			continue
		}
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("git cat-file: bad line %q", line)
		}
		if total += size; total > MaxGitBytes {
			return nil, fmt.Errorf("git:%s: the blobs pass %d GiB, more than objbench reads into memory; choose fewer with a maximum count", repo, MaxGitBytes>>30)
		}
		items = append(items, Item{Name: f[1], Size: size})
		if max > 0 && len(items) >= max {
			break
		}
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("git:%s holds no blobs", repo)
	}
	if err := readBlobs(ctx, repo, items); err != nil {
		return nil, err
	}
	return items, nil
}

// readBlobs fills each item's Data with one `git cat-file --batch`.
func readBlobs(ctx context.Context, repo string, items []Item) error {
	var ids strings.Builder
	for _, it := range items {
		ids.WriteString(it.Name + "\n")
	}
	cmd := exec.CommandContext(ctx, "git", "-C", repo, "cat-file", "--batch")
	cmd.Stdin = strings.NewReader(ids.String())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	r := bufio.NewReaderSize(stdout, 1<<20)
	readErr := func() error {
		for i := range items {
			head, err := r.ReadString('\n')
			if err != nil {
				return fmt.Errorf("git cat-file --batch: %w", err)
			}
			f := strings.Fields(head)
			if len(f) != 3 || f[0] != items[i].Name || f[1] != "blob" || f[2] != strconv.FormatInt(items[i].Size, 10) {
				return fmt.Errorf("git cat-file --batch: unexpected header %q for blob %s", strings.TrimSpace(head), items[i].Name)
			}
			items[i].Data = make([]byte, items[i].Size+1) // the content, then a newline
			if _, err := io.ReadFull(r, items[i].Data); err != nil {
				return fmt.Errorf("git cat-file --batch: blob %s: %w", items[i].Name, err)
			}
			items[i].Data = items[i].Data[:items[i].Size]
		}
		return nil
	}()
	_, _ = io.Copy(io.Discard, r)
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git -C %s cat-file --batch: %w: %s", repo, err, strings.TrimSpace(stderr.String()))
	}
	return readErr
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

// Bytes is the items' total size.
func Bytes(items []Item) int64 {
	var n int64
	for _, it := range items {
		n += it.Size
	}
	return n
}
