package result

import (
	"context"
	"errors"
	"fmt"
	"golang.org/x/sync/errgroup"
)

// Source is one result file to merge: its name and how to read it.
type Source struct {
	Name string
	Read func() ([]byte, error)
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
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for i, src := range srcs {
		g.Go(func() error {
			if gctx.Err() != nil {
				return gctx.Err()
			}
			b, err := src.Read()
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
