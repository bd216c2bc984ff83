package transfer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/objbench/objbench/storage"
)

// download reads one object with ranged GETs, o.PartConcurrency at a time,
// into its file (each part written at its offset) or into nothing.
func (r *runner) download(ctx context.Context, it Item) (err error) {
	var f *os.File
	if it.Path != "" {
		if f, err = r.create(it); err != nil {
			return fmt.Errorf("download %s: %w", it.Key, err)
		}
		defer func() {
			err = errors.Join(err, f.Close())
			if err != nil {
				r.removeFile(it) // never leave a partial file behind
			}
		}()
	}
	whole := parts(it.Size, r.o.PartSize) == 1
	return r.forEachPart(ctx, it.Size, func(ctx context.Context, _ int, off, size int64) error {
		var w io.Writer = io.Discard // both it and an OffsetWriter can be rewound for a retry
		if f != nil {
			w = io.NewOffsetWriter(f, off)
		}
		tr, start := new(storage.Trace), time.Now()
		o := storage.GetOptions{Trace: tr}
		if !whole {
			o.Range = &storage.Range{Offset: off, Length: size}
		}
		n, err := r.st.Get(ctx, it.Key, o, w)
		if err == nil && n != size {
			err = fmt.Errorf("get %s: %d bytes at %d, want %d (object changed?)", it.Key, n, off, size)
		}
		r.request(start, tr, size, err)
		return err
	})
}

// create makes the destination file, refusing to replace one unless
// o.Force, and sizes it so parts can be written in any order.
func (r *runner) create(it Item) (*os.File, error) {
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if r.o.Force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := r.openFile(it, flags)
	if errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("%s: %w (Options.Force replaces it)", it.Path, fs.ErrExist)
	}
	if err != nil {
		return nil, err
	}
	if err := f.Truncate(it.Size); err != nil {
		_ = f.Close()
		r.removeFile(it)
		return nil, err
	}
	return f, nil
}

// openFile opens it's file: below the destination's root when the plan
// has one (DownloadPlan's always does), else at its path.
func (r *runner) openFile(it Item, flags int) (*os.File, error) {
	if r.dest == nil {
		if err := os.MkdirAll(filepath.Dir(it.Path), 0o755); err != nil {
			return nil, err
		}
		return os.OpenFile(it.Path, flags, 0o644)
	}
	rel, err := r.dest.rel(it.Path)
	if err != nil {
		return nil, err
	}
	return r.dest.openFile(it.Key, rel, flags)
}

// removeFile removes it's file, below the destination's root if any.
func (r *runner) removeFile(it Item) {
	if r.dest == nil {
		_ = os.Remove(it.Path)
		return
	}
	if rel, err := r.dest.rel(it.Path); err == nil {
		r.dest.remove(rel)
	}
}
