package dataset

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/objbench/objbench/atomicfile"
	"github.com/objbench/objbench/payload"
)

// Options tune a dataset.
type Options struct {
	Seed          uint64  // payload seed: the same seed writes the same bytes
	CompressRatio float64 // > 1: data compresses about this many times
	Workers       int     // files written at once (WriteFiles); default 4
	Force         bool    // replace existing files instead of failing
	Counter       *Counter
}

// Counter is progress, updated as bytes are written; safe to read while
// writing goes on.
type Counter struct {
	Files atomic.Int64
	Bytes atomic.Int64
}

// WriteFile writes one file of size bytes at path.
func WriteFile(ctx context.Context, path string, size int64, o Options) error {
	block, err := payload.NewBlock(payload.DefaultBlockSize, o.Seed, o.CompressRatio)
	if err != nil {
		return err
	}
	return writeOne(ctx, path, size, 0, payload.NewReader(block), o)
}

// Name is the name of file i (0-based) of a set of count files: zero-padded
// so that names sort in order.
func Name(i, count int) string {
	width := len(strconv.Itoa(max(count, 1)))
	s := strconv.Itoa(i + 1)
	for len(s) < width {
		s = "0" + s
	}
	return "file-" + s
}

// WriteFiles writes count files of size bytes into dir (created if needed).
func WriteFiles(ctx context.Context, dir string, count int, size int64, o Options) error {
	if count < 1 {
		return errors.New("dataset: count must be at least 1")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if !o.Force {
		for i := range count { // fail before writing anything
			if _, err := os.Lstat(filepath.Join(dir, Name(i, count))); err == nil {
				return fmt.Errorf("%s: %w (Options.Force replaces it)", filepath.Join(dir, Name(i, count)), fs.ErrExist)
			}
		}
	}
	block, err := payload.NewBlock(payload.DefaultBlockSize, o.Seed, o.CompressRatio)
	if err != nil {
		return err
	}
	workers := o.Workers
	if workers <= 0 {
		workers = 4
	}
	var next atomic.Int64
	g, ctx := errgroup.WithContext(ctx)
	for range min(workers, count) {
		g.Go(func() error {
			r := payload.NewReader(block)
			for i := int(next.Add(1) - 1); i < count; i = int(next.Add(1) - 1) {
				if err := writeOne(ctx, filepath.Join(dir, Name(i, count)), size, uint64(i), r, o); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// writeOne writes size payload bytes (object seed) to a temporary file and
// renames it to path when complete.
func writeOne(ctx context.Context, path string, size int64, seed uint64, r *payload.Reader, o Options) error {
	if !o.Force {
		if _, err := os.Lstat(path); err == nil {
			return fmt.Errorf("%s: %w (Options.Force replaces it)", path, fs.ErrExist)
		}
	}
	r.Reset(seed, size)
	err := atomicfile.Write(path, 0o644, func(w io.Writer) error {
		_, err := r.WriteTo(&progressWriter{ctx: ctx, w: w, c: o.Counter})
		return err
	})
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if o.Counter != nil {
		o.Counter.Files.Add(1)
	}
	return nil
}

// progressWriter counts written bytes and stops when ctx ends.
type progressWriter struct {
	ctx context.Context
	w   io.Writer
	c   *Counter
}

func (p *progressWriter) Write(b []byte) (int, error) {
	if err := p.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := p.w.Write(b)
	if p.c != nil {
		p.c.Bytes.Add(int64(n))
	}
	return n, err
}
