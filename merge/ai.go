package merge

import (
	"fmt"
	"slices"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/objbench/objbench/internal/resultpack"
	"github.com/objbench/objbench/result"
)

// mergeAI combines the AI figures of a step's parts (workers) into out:
// each worker ran its own accelerators and ranks, so their records are
// put side by side (never averaged), and counts add.
func mergeAI(out *result.Step, steps []*result.Step) error {
	out.Training, out.Checkpoint, out.Lake = nil, nil, nil
	for _, s := range steps {
		if err := mergeTraining(out, s.Training); err != nil {
			return err
		}
		if err := mergeCheckpoint(out, s.Checkpoint); err != nil {
			return err
		}
		if err := mergeLake(out, s.Lake); err != nil {
			return err
		}
	}
	for i := range out.Training {
		slices.SortFunc(out.Training[i].Loaders, func(a, b result.Loader) int { return a.Accelerator - b.Accelerator })
	}
	if c := out.Checkpoint; c != nil {
		slices.SortFunc(c.Rank, func(a, b result.RankIO) int { return a.Rank - b.Rank })
	}
	return nil
}

// mergeTraining adds a part's rounds to out's, round by round.
func mergeTraining(out *result.Step, ts []result.Training) error {
	for i, t := range ts {
		if i >= len(out.Training) {
			c := t
			c.Loaders = slices.Clone(t.Loaders)
			out.Training = append(out.Training, c)
			continue
		}
		o := &out.Training[i]
		if o.Model != t.Model || o.Accelerator != t.Accelerator || o.Accelerators != t.Accelerators || o.Epoch != t.Epoch {
			return fmt.Errorf("training figures of different runs: %s on %s x%d epoch %d against %s on %s x%d epoch %d",
				o.Model, o.Accelerator, o.Accelerators, o.Epoch, t.Model, t.Accelerator, t.Accelerators, t.Epoch)
		}
		o.Loaders = append(o.Loaders, t.Loaders...)
	}
	return nil
}

func mergeCheckpoint(out *result.Step, c *result.Checkpoint) error {
	switch {
	case c == nil:
		return nil
	case out.Checkpoint == nil:
		x := *c
		x.Rank = slices.Clone(c.Rank)
		out.Checkpoint = &x
		return nil
	}
	o := out.Checkpoint
	if o.Model != c.Model || o.Op != c.Op || o.Index != c.Index || o.Ranks != c.Ranks || o.Bytes != c.Bytes {
		return fmt.Errorf("checkpoint figures of different runs: %s %s %d (%d ranks, %d bytes) against %s %s %d (%d ranks, %d bytes)",
			o.Model, o.Op, o.Index, o.Ranks, o.Bytes, c.Model, c.Op, c.Index, c.Ranks, c.Bytes)
	}
	o.Rank = append(o.Rank, c.Rank...)
	return nil
}

func mergeLake(out *result.Step, l *result.Lake) error {
	if l == nil {
		return nil
	}
	if out.Lake == nil {
		x := *l
		out.Lake = &x
		return nil
	}
	o := out.Lake
	if o.Files != l.Files || o.FileBytes != l.FileBytes || o.RowGroups != l.RowGroups || o.Columns != l.Columns || o.Projected != l.Projected {
		return fmt.Errorf("lake figures of different layouts: %d files of %d bytes against %d of %d", o.Files, o.FileBytes, l.Files, l.FileBytes)
	}
	o.Queries += l.Queries
	o.Requests += l.Requests
	o.BytesRead += l.BytesRead
	o.BytesScanned += l.BytesScanned
	o.Errors += l.Errors
	var c resultpack.Codec
	var h *hdr.Histogram
	for _, enc := range []string{o.Scan, l.Scan} {
		if err := c.AddEncoded(&h, enc); err != nil {
			return err
		}
	}
	o.Scan = result.EncodeHistogram(h)
	return nil
}
