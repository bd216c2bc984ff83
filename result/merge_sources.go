package result

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"
	"golang.org/x/sync/errgroup"
)

// Source is one result file to merge: its name and how to read it. Read
// is called twice for a version-5 file: once for what it says besides its
// seconds, once for the seconds, so that a merge never holds every
// file's seconds at once.
type Source struct {
	Name string
	Read func() ([]byte, error)
}

// MergeSources is Merge of result files read `workers` at a time: each
// version-5 file's seconds are unpacked frame by frame and added straight
// into the merged seconds, never held as a whole. The adding is shared
// out among `workers` goroutines by the merged seconds they add to, each
// reading every frame.
func MergeSources(ctx context.Context, srcs []Source, workers int) (*Run, error) {
	if len(srcs) == 0 {
		return nil, errors.New("merge: no result files")
	}
	workers = max(workers, 1)
	runs := make([]*Run, len(srcs))
	lazy := make([]bool, len(srcs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for i, src := range srcs {
		g.Go(func() error {
			if gctx.Err() != nil {
				return gctx.Err()
			}
			b, err := src.Read()
			if err == nil {
				runs[i], lazy[i], err = decodeForMerge(b)
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
		f := &feeder{ctx: ctx, srcs: srcs, parts: parts, lazy: lazy, pl: pl, groups: workers}
		return f.run()
	})
}

// decodeForMerge reads a file for a merge: a version-5 file without its
// seconds (lazy: its streams' Packed say where they are, its totals are
// to be computed as they are read), an older one whole.
func decodeForMerge(doc []byte) (*Run, bool, error) {
	r, _, err := decodeMeta(doc)
	if err != nil {
		return nil, false, err
	}
	for _, st := range r.Steps {
		for _, s := range st.Streams {
			if s.Packed != "" {
				return r, true, nil
			}
		}
	}
	r, err = DecodeBytes(doc)
	return r, false, err
}

// frameJob is one frame of a part's stream, or the whole seconds of an
// older file's stream, for every adding goroutine to read.
type frameJob struct {
	part, step, stream int
	ps                 *packedSeconds
	raw                []byte
	secs               []Second
	pending            atomic.Int32 // goroutines yet to read raw
}

// feeder reads the parts' seconds (producers: whole files, frames
// unpacked) and adds them (one goroutine per group of merged seconds).
type feeder struct {
	ctx    context.Context
	srcs   []Source
	parts  []part
	lazy   []bool
	pl     *mergePlan
	groups int
	free   chan []byte
	queues []chan *frameJob
	sets   [][]*secondMerger
	sums   []map[[3]int]*summarizer
}

// ownerOf is the group that adds to merged second t: runs of 16 seconds
// dealt out in turn.
func (f *feeder) ownerOf(t int64) int { return int(t/16) % f.groups }

func (f *feeder) run() error {
	f.free = make(chan []byte, 4*f.groups)
	for range cap(f.free) {
		f.free <- nil
	}
	f.sets = make([][]*secondMerger, f.groups)
	f.sums = make([]map[[3]int]*summarizer, f.groups)
	f.queues = make([]chan *frameJob, f.groups)
	for gi := range f.groups {
		f.sets[gi] = f.pl.mergers(func(t int64) bool { return f.ownerOf(t) == gi })
		f.sums[gi] = map[[3]int]*summarizer{}
		f.queues[gi] = make(chan *frameJob, 4)
	}
	g, ctx := errgroup.WithContext(f.ctx)
	var next atomic.Int64
	var producers errgroup.Group
	for range f.groups {
		producers.Go(func() error {
			dec := newDecoder()
			defer dec.Close()
			for {
				pi := int(next.Add(1) - 1)
				if pi >= len(f.parts) || ctx.Err() != nil {
					return nil
				}
				if err := f.produce(ctx, pi, dec); err != nil {
					return fmt.Errorf("%s: %w", f.parts[pi].file, err)
				}
			}
		})
	}
	g.Go(func() error {
		err := producers.Wait()
		for _, q := range f.queues {
			close(q)
		}
		return err
	})
	for gi := range f.groups {
		g.Go(func() error { return f.consume(gi) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if err := f.partTotals(); err != nil {
		return err
	}
	return f.pl.finish(f.sets)
}

// produce sends part pi's seconds to every group.
func (f *feeder) produce(ctx context.Context, pi int, dec *zstd.Decoder) error {
	p := f.parts[pi]
	var texts [][]byte
	if f.lazy[p.index] {
		doc, err := f.srcs[p.index].Read()
		if err != nil {
			return err
		}
		_, texts = cutPacked(doc)
	}
	for k := range p.run.Steps {
		for j := range p.run.Steps[k].Streams {
			s := &p.run.Steps[k].Streams[j]
			if s.Packed == "" {
				if err := f.send(ctx, &frameJob{part: pi, step: k, stream: j, secs: s.Seconds}); err != nil {
					return err
				}
				continue
			}
			blob, err := packedBlob(s.Packed, texts)
			if err != nil {
				return err
			}
			ps, err := openPacked(blob)
			if err != nil {
				return err
			}
			for {
				var buf []byte
				select {
				case buf = <-f.free:
				case <-ctx.Done():
					return ctx.Err()
				}
				raw, err := ps.nextFrame(dec, buf)
				if err != nil || raw == nil {
					f.free <- buf
					if err != nil {
						return fmt.Errorf("step %d stream %s: %w", k+1, s.Name, err)
					}
					break
				}
				if err := f.send(ctx, &frameJob{part: pi, step: k, stream: j, ps: ps, raw: raw}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (f *feeder) send(ctx context.Context, j *frameJob) error {
	j.pending.Store(int32(f.groups))
	for _, q := range f.queues {
		select {
		case q <- j:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// consume adds what lands in group gi's seconds, and sums the records
// whose center is in them into their part's totals (version-5 parts).
func (f *feeder) consume(gi int) error {
	var rec opRecord
	for j := range f.queues[gi] {
		if err := f.addJob(gi, j, &rec); err != nil {
			return err // the group's context ends the producers
		}
		if j.raw != nil && j.pending.Add(-1) == 0 {
			f.free <- j.raw
		}
	}
	return nil
}

func (f *feeder) addJob(gi int, j *frameJob, rec *opRecord) error {
	r := f.pl.routes[[3]int{j.part, j.step, j.stream}]
	ms := f.sets[gi][r.stream]
	var sum *summarizer
	if f.lazy[f.parts[j.part].index] {
		key := [3]int{j.part, j.step, j.stream}
		if sum = f.sums[gi][key]; sum == nil {
			sum = newSummarizer(f.parts[j.part].run.Steps[j.step].Streams[j.stream].Window, true)
			f.sums[gi][key] = sum
		}
	}
	add := func(t int64, o *OpSecond, hists *[3][]byte) error {
		if err := ms.add(t, o, r.shift, hists); err != nil {
			return fmt.Errorf("step %d, second %d: %w", j.step+1, t, err)
		}
		if sum != nil && f.ownerOf(centerSecond(t, r.shift)) == gi {
			return sum.add(t, o, hists)
		}
		return nil
	}
	if j.raw == nil {
		for _, sec := range j.secs {
			for i := range sec.Ops {
				if err := add(sec.T, &sec.Ops[i], nil); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return j.ps.eachRecord(j.raw, rec, nil, func(o *opRecord) error { return add(o.T, &o.OpSecond, &o.hist) })
}

// partTotals gives the version-5 parts' streams the totals their records
// were summed into.
func (f *feeder) partTotals() error {
	for pi, p := range f.parts {
		if !f.lazy[p.index] {
			continue
		}
		for k := range p.run.Steps {
			for j := range p.run.Steps[k].Streams {
				s := &p.run.Steps[k].Streams[j]
				sum := newSummarizer(s.Window, true)
				for gi := range f.groups {
					if o := f.sums[gi][[3]int{pi, k, j}]; o != nil {
						if err := sum.merge(o); err != nil {
							return err
						}
					}
				}
				s.Totals = sum.totals(s.Window)
			}
		}
	}
	return nil
}
