package result

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sync/errgroup"
)

// Source is one result file to merge: its name and how to read it.
// ReadInto, when set, is used instead of Read: it reads the file into buf
// (grown as needed) and returns it, so a merge of many files reuses a
// few buffers rather than holding each file's bytes (FileSource).
type Source struct {
	Name     string
	Read     func() ([]byte, error)
	ReadInto func(buf []byte) ([]byte, error)
}

// FileSource is the result file at path.
func FileSource(path string) Source {
	return Source{Name: path, Read: func() ([]byte, error) { return os.ReadFile(path) }, ReadInto: func(buf []byte) ([]byte, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return nil, err
		}
		if int64(cap(buf)) < st.Size()+1 {
			buf = make([]byte, 0, st.Size()+1)
		}
		buf = buf[:0]
		for { // as os.ReadFile: to the end, whatever Stat said
			n, err := f.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if err == io.EOF {
				return buf, nil
			}
			if err != nil {
				return nil, err
			}
			if len(buf) == cap(buf) {
				buf = append(buf, 0)[:len(buf)]
			}
		}
	}}
}

// MergeSources is Merge of result files read `workers` at a time. A
// version-5 file's seconds stay packed (a third of what the old records
// took) until the merge reads them: in the order of the merged seconds,
// every file's frames at once, so that each merged second is summed while
// it is in the CPU's cache and written as soon as every file is past it.
// The merged seconds are shared out among `workers` goroutines in runs.
func MergeSources(ctx context.Context, srcs []Source, workers int) (*Run, error) {
	if len(srcs) == 0 {
		return nil, errors.New("merge: no result files")
	}
	workers = max(workers, 1)
	runs := make([]*Run, len(srcs))
	packed := make([]map[[2]int]*packedSeconds, len(srcs)) // [step, stream] -> its packed seconds
	// A file's bytes are not needed once it is decoded (its packed
	// seconds are a copy): each reading goroutine reuses one buffer, so
	// a merge does not allocate (and fault in) every file's bytes.
	bufs := make(chan []byte, workers)
	for range workers {
		bufs <- nil
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for i, src := range srcs {
		g.Go(func() error {
			if gctx.Err() != nil {
				return gctx.Err()
			}
			var b []byte
			var err error
			if src.ReadInto != nil {
				buf := <-bufs
				b, err = src.ReadInto(buf)
				defer func() { bufs <- b[:0] }()
			} else {
				b, err = src.Read()
			}
			if err == nil {
				runs[i], packed[i], err = decodeForMerge(b)
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
// them), an older one whole.
func decodeForMerge(doc []byte) (*Run, map[[2]int]*packedSeconds, error) {
	r, texts, err := decodeMeta(doc)
	if err != nil {
		return nil, nil, err
	}
	var packed map[[2]int]*packedSeconds
	err = eachPacked(r, texts, func(k, j int, s *Stream, blob []byte) error {
		ps, err := openPacked(blob)
		if err != nil {
			return err
		}
		if packed == nil {
			packed = map[[2]int]*packedSeconds{}
		}
		packed[[2]int{k, j}] = ps
		s.Seconds = nil
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if packed != nil {
		return r, packed, nil
	}
	r, err = DecodeBytes(doc)
	return r, nil, err
}
