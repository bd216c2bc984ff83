package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
)

// Write writes path with what fn writes, as Create does, with permissions
// perm for a file it makes. On any error a file it replaces is left as it
// was.
func Write(path string, perm os.FileMode, fn func(io.Writer) error) error {
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// File is a file being written by Create: Commit puts it in place, Abort
// drops it. Exactly one of them must be called.
type File struct {
	f      *os.File
	tmp    bool   // f is a temporary file, renamed to path by Commit
	path   string // the file written, links followed
	closed bool
}

// Create starts writing path, as Check would allow (it checks again, so
// the path is judged as it is now). An absent path or a regular file gets
// a temporary file beside it (missing directories are made), renamed over
// it by Commit: readers never see half a file, and what was there stays
// until then. A character device or a named pipe is opened and written as
// it is (a named pipe waits for its reader). Anything else is refused with
// a *PathError. Symbolic links are followed: the file a link names is
// written, and the link stays.
func Create(path string, perm os.FileMode) (*File, error) {
	t, err := resolve(path)
	if err != nil {
		return nil, err
	}
	if t.how == writeThrough || t.appendOnly {
		flags := os.O_WRONLY
		if t.appendOnly {
			flags |= os.O_APPEND
		}
		f, err := os.OpenFile(t.path, flags, 0)
		if err != nil {
			return nil, &PathError{Path: path, Why: "cannot be opened", Err: unwrapPath(err)}
		}
		return &File{f: f, path: t.path}, nil
	}
	if err := t.writable(path); err != nil {
		return nil, err
	}
	dir := filepath.Dir(t.path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, &PathError{Path: path, Why: "its directory cannot be made", Err: unwrapPath(err)}
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(t.path)+".tmp-*")
	if err != nil {
		return nil, &PathError{Path: path, Why: "its directory takes no new files", Err: unwrapPath(err)}
	}
	if err := tmp.Chmod(perm); err != nil { // CreateTemp's 0600 is for secrets
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, err
	}
	return &File{f: tmp, tmp: true, path: t.path}, nil
}

// Write writes to the file (the temporary one, until Commit).
func (f *File) Write(p []byte) (int, error) { return f.f.Write(p) }

// Commit closes the file and, for a temporary one, renames it over the
// path. On an error the temporary file is removed and what was at the
// path stays.
func (f *File) Commit() error {
	if f.closed {
		return errors.New("atomicfile: " + f.path + " committed or aborted twice")
	}
	f.closed = true
	err := f.f.Close()
	if !f.tmp {
		return err
	}
	if err == nil {
		err = os.Rename(f.f.Name(), f.path)
	}
	if err != nil {
		os.Remove(f.f.Name())
	}
	return err
}

// Abort closes the file and removes a temporary one: what was at the
// path stays (a device or a pipe keeps what was written to it).
func (f *File) Abort() {
	if f.closed {
		return
	}
	f.closed = true
	f.f.Close()
	if f.tmp {
		os.Remove(f.f.Name())
	}
}
