package merge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"

	"golang.org/x/sync/errgroup"

	"github.com/objbench/objbench/internal/resultpack"
	"github.com/objbench/objbench/result"
)

// Source is one result file to merge: its name and how to read it.
// ReadInto, when set, is used instead of Read: it reads the file into buf
// (grown as needed; the merge reuses it for other files) and returns it;
// with ReadAt as well (a range of the
// file, again), the merge keeps none of the file's bytes but reads each
// frame of its packed seconds when it gets to it (FileSource): memory
// for a frame a file, not for every file's seconds.
type Source struct {
	Name     string
	Read     func() ([]byte, error)
	ReadInto func(buf []byte) ([]byte, error)
	ReadAt   func(p []byte, off int64) (int, error)
}

// FileSource is the result file at path, read into the merge's buffers
// and its frames read again as the merge reaches them.
func FileSource(path string) Source {
	return Source{Name: path,
		ReadInto: func(buf []byte) ([]byte, error) {
			f, err := os.Open(path)
			if err != nil {
				return nil, err
			}
			defer f.Close()
			b := bytes.NewBuffer(buf[:0])
			if fi, err := f.Stat(); err == nil && fi.Size() < 1<<40 {
				b.Grow(int(fi.Size()) + bytes.MinRead) // read at once, not grown by doubling
			}
			_, err = b.ReadFrom(f)
			return b.Bytes(), err
		},
		ReadAt: func(p []byte, off int64) (int, error) {
			f, err := os.Open(path)
			if err != nil {
				return 0, err
			}
			defer f.Close()
			return f.ReadAt(p, off)
		}}
}

// Sources is Runs of result files read `workers` at a time. A
// version-5 file's seconds stay packed (a third of what the old records
// took) until the merge reads them: in the order of the merged seconds,
// every file's frames at once, so that each merged second is summed while
// it is in the CPU's cache and written as soon as every file is past it.
// The merged seconds are shared out among `workers` goroutines in runs.
func Sources(ctx context.Context, srcs []Source, workers int) (*result.Run, error) {
	if len(srcs) == 0 {
		return nil, errors.New("merge: no result files")
	}
	workers = max(workers, 1)
	runs := make([]*result.Run, len(srcs))
	packed := make([]map[[2]int]*resultpack.Packed, len(srcs)) // [step, stream] -> its packed seconds
	// A file's bytes are not needed once it is decoded (its packed
	// seconds are a copy, or read again frame by frame): each reading
	// goroutine reuses its buffers, so a merge does not allocate (and
	// fault in) every file's bytes.
	type scratch struct{ doc, blob []byte }
	bufs := make(chan *scratch, workers)
	for range workers {
		bufs <- &scratch{}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for i, src := range srcs {
		g.Go(func() error {
			if gctx.Err() != nil {
				return gctx.Err()
			}
			var err error
			if src.ReadInto != nil {
				sc := <-bufs
				defer func() { bufs <- sc }()
				var b []byte
				if b, err = src.ReadInto(sc.doc[:0]); err == nil {
					sc.doc = b
					var lazy *resultpack.Lazy
					if src.ReadAt != nil {
						lazy = &resultpack.Lazy{Name: src.Name, ReadAt: src.ReadAt}
					}
					runs[i], packed[i], err = decodeForMerge(b, lazy, &sc.blob)
				}
			} else {
				var b []byte
				if b, err = src.Read(); err == nil {
					runs[i], packed[i], err = decodeForMerge(b, nil, nil)
				}
			}
			if err != nil {
				return fmt.Errorf("%s: %w", src.Name, err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	names := make([]string, len(srcs))
	for i, s := range srcs {
		names[i] = s.Name
	}
	parts, err := checkParts(runs, names)
	if err != nil {
		return nil, err
	}
	return mergeParts(parts, func(pl *mergePlan) error {
		return feedInOrder(ctx, pl, parts, packed, workers)
	})
}

// decodeForMerge reads a file for a merge: a version-5 file with its
// seconds left packed (its streams' totals are computed as the merge reads
// them), an older one whole. With lazy (where doc can be read again),
// the packed seconds are decoded into *blob only to find their frames,
// whose bytes are read again when the merge gets to them; without, each
// stream keeps its blob.
func decodeForMerge(doc []byte, lazy *resultpack.Lazy, blob *[]byte) (*result.Run, map[[2]int]*resultpack.Packed, error) {
	var packed map[[2]int]*resultpack.Packed
	r, err := result.DecodeKeepingPacked(doc, func(k, j int, text []byte, off int) error {
		var buf []byte
		if lazy != nil && off >= 0 {
			buf = *blob
		}
		b, err := resultpack.DecodeBase64(text, buf)
		if err != nil {
			return err
		}
		ps, err := resultpack.Open(b)
		if err != nil {
			return err
		}
		if lazy != nil && off >= 0 {
			*blob = b
			l := *lazy
			l.TextOff, l.TextLen = int64(off), len(text)
			ps.ReadLazily(l)
		}
		if packed == nil {
			packed = map[[2]int]*resultpack.Packed{}
		}
		packed[[2]int{k, j}] = ps
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return r, packed, nil
}
