package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxLinks bounds the symbolic links followed from one path (Linux's own
// limit is 40).
const maxLinks = 40

// PathError says why a path may not be written.
type PathError struct {
	Path string
	Why  string
	Err  error // the system's error, if one said it
}

func (e *PathError) Error() string {
	if e.Err != nil {
		return e.Path + ": " + e.Why + ": " + e.Err.Error()
	}
	return e.Path + ": " + e.Why
}

func (e *PathError) Unwrap() error { return e.Err }

// ErrRefused is what errors.Is finds in a PathError for a file that is
// there and is not a kind objbench writes (a directory, a block device, a
// socket): it is never replaced.
var ErrRefused = errors.New("not a file objbench writes")

// how says what writing a path does.
type how int

const (
	replace      how = iota // absent or a regular file: a temporary file renamed over it
	writeThrough            // a character device or a named pipe: opened and written as is
)

// target is where a path leads and how it is written.
type target struct {
	path string // the file itself, every symbolic link followed
	how  how
	// appendOnly opens a regular file reached through a /proc/*/fd link
	// (/dev/stdout redirected to a file) for appending: replacing it would
	// cut the caller's own output off from the file its shell opened.
	appendOnly bool
	exists     bool
}

// Check reports whether Write or Create could write path, without writing
// it: nil for a path that is absent (its nearest existing directory must
// take new files), a regular file objbench may open for writing, a
// character device or a named pipe; a *PathError naming the path and the
// reason otherwise. Symbolic links are followed: the file a link names is
// what is written, and the link stays.
func Check(path string) error {
	t, err := resolve(path)
	if err != nil {
		return err
	}
	if t.how == writeThrough || t.appendOnly {
		return nil
	}
	if err := t.writable(path); err != nil {
		return err
	}
	return checkDir(path, filepath.Dir(t.path))
}

// writable refuses a regular file the user cannot write, as a shell's >
// does, although a rename would replace it.
func (t target) writable(path string) error {
	if !t.exists {
		return nil
	}
	f, err := os.OpenFile(t.path, os.O_WRONLY, 0)
	if err != nil {
		return &PathError{Path: path, Why: "cannot be written", Err: unwrapPath(err)}
	}
	return f.Close()
}

// checkDir checks that dir, or its nearest existing ancestor when dir is
// yet to be made, takes new files, by making one and removing it.
func checkDir(path, dir string) error {
	for {
		fi, err := os.Stat(dir)
		switch {
		case err == nil && !fi.IsDir():
			return &PathError{Path: path, Why: dir + " is not a directory"}
		case err == nil:
			f, err := os.CreateTemp(dir, ".objbench-check-*")
			if err != nil {
				return &PathError{Path: path, Why: "its directory takes no new files", Err: unwrapPath(err)}
			}
			f.Close()
			return os.Remove(f.Name())
		case !errors.Is(err, fs.ErrNotExist):
			return &PathError{Path: path, Why: "its directory cannot be read", Err: unwrapPath(err)}
		}
		up := filepath.Dir(dir)
		if up == dir {
			return &PathError{Path: path, Why: "no directory of it exists"}
		}
		dir = up
	}
}

// resolve follows path's symbolic links to the file they name and says
// how that file is written, or why it is not.
func resolve(path string) (target, error) {
	p := path
	for range maxLinks {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return target{path: p, how: replace}, nil
		}
		if errors.Is(err, syscall.ENOTDIR) {
			return target{}, &PathError{Path: path, Why: "cannot be written: a part of its path is a file, not a directory"}
		}
		if err != nil {
			return target{}, &PathError{Path: path, Why: "cannot be read", Err: unwrapPath(err)}
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return classify(path, p, fi)
		}
		if magicLink(p) {
			// /proc/self/fd/1 and its kind lead to an open file, not a
			// path: write to it as it is, whatever it turns out to be.
			fi, err := os.Stat(p)
			if err != nil {
				return target{}, &PathError{Path: path, Why: "cannot be opened", Err: unwrapPath(err)}
			}
			t, err := classify(path, p, fi)
			if err == nil && t.how == replace {
				t.appendOnly = true
			}
			return t, err
		}
		l, err := os.Readlink(p)
		if err != nil {
			return target{}, &PathError{Path: path, Why: "cannot be read", Err: unwrapPath(err)}
		}
		if !filepath.IsAbs(l) {
			l = filepath.Join(filepath.Dir(p), l)
		}
		p = l
	}
	return target{}, &PathError{Path: path, Why: fmt.Sprintf("more than %d symbolic links", maxLinks)}
}

// classify says how the file p (no link), which path led to, is written.
func classify(path, p string, fi fs.FileInfo) (target, error) {
	m := fi.Mode()
	switch {
	case m.IsRegular():
		return target{path: p, how: replace, exists: true}, nil
	case m&fs.ModeNamedPipe != 0:
		return target{path: p, how: writeThrough, exists: true}, nil
	case m&fs.ModeCharDevice != 0:
		return target{path: p, how: writeThrough, exists: true}, nil
	}
	kind := "not a regular file"
	switch {
	case m.IsDir():
		kind = "a directory"
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	case m&fs.ModeDevice != 0:
		kind = "a block device"
	}
	why := kind + ", which objbench never replaces or writes into"
	if p != path {
		why = "leads to " + p + ", " + why
	}
	return target{}, &PathError{Path: path, Why: why, Err: ErrRefused}
}

// magicLink reports whether p is one of the links under /proc or /dev/fd
// that name an open file rather than a path.
func magicLink(p string) bool {
	return strings.HasPrefix(p, "/proc/") || strings.HasPrefix(p, "/dev/fd/")
}

// unwrapPath drops the *fs.PathError around a system error: the path is
// already in the PathError that carries it.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
