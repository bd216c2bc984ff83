package result

import (
	"context"
	"fmt"
	"slices"

	"golang.org/x/sync/errgroup"
)

// chunkSeconds is how many merged seconds are summed before they are
// written: their accumulators stay in cache while every file adds to them.
const chunkSeconds = 2

// input is one part's stream feeding a merged stream.
type input struct {
	part, step, stream int
	shift              int64
	file               string
	ps                 *packedSeconds // version 5
	secs               []Second       // older versions, in T order
	window             Window
	// keepTotals: the part's totals as its file gives them serve (see
	// ownTotalsServe), so the merge does not sum them again.
	keepTotals bool
}

func (in *input) last() int64 {
	if in.ps != nil {
		return in.ps.last
	}
	if len(in.secs) == 0 {
		return -1
	}
	return in.secs[len(in.secs)-1].T
}

// feedInOrder merges every planned stream from its inputs in the order of
// its merged seconds, `workers` goroutines each taking a run of them, and
// gives the packed parts their totals.
func feedInOrder(ctx context.Context, pl *mergePlan, parts []part, packed []map[[2]int]*packedSeconds, workers int) error {
	inputs := make([][]*input, len(pl.streams))
	for key, r := range pl.routes {
		p := parts[key[0]]
		s := &p.run.Steps[key[1]].Streams[key[2]]
		in := &input{part: key[0], step: key[1], stream: key[2], shift: r.shift, window: s.Window, file: p.file}
		if ps := packed[p.index][[2]int{key[1], key[2]}]; ps != nil {
			in.ps, in.keepTotals = ps, ownTotalsServe(p.run)
		} else {
			in.secs = sortedSeconds(s.Seconds)
		}
		inputs[r.stream] = append(inputs[r.stream], in)
	}
	for i, slot := range pl.streams {
		ins := inputs[i]
		slices.SortFunc(ins, func(a, b *input) int { return a.part - b.part })
		secs, sums, hists, err := mergeInOrder(ctx, ins, workers)
		if err != nil {
			return fmt.Errorf("step %d: %w", slot.step+1, err)
		}
		s := &pl.steps[slot.step].Streams[slot.idx]
		s.Seconds = secs
		if err := setWindowWith(s, slot.window, hists); err != nil {
			return fmt.Errorf("step %d: %w", slot.step+1, err)
		}
		for k, in := range ins {
			if in.ps == nil || in.keepTotals {
				continue
			}
			sum := newSummarizer(in.window, true)
			for _, group := range sums {
				if err := sum.merge(group[k]); err != nil {
					return err
				}
			}
			parts[in.part].run.Steps[in.step].Streams[in.stream].Totals = sum.totals(in.window)
		}
	}
	return nil
}

// ownTotalsServe says whether a packed part's totals, as its file gives
// them, are all its line in the workers table needs: its main steps hold
// one op total with latencies at most, whose p99 is the line's. Else the
// line's p99 is of the latencies of several totals, which a file does
// not hold, and the merge sums them while it reads the seconds. (Summing
// every worker's latencies beside the merged seconds' took a tenth of a
// 100-worker merge: a hundred accumulators do not stay in cache.)
func ownTotalsServe(r *Run) bool {
	n := 0
	for _, st := range r.Steps {
		if st.Kind != KindMain {
			continue
		}
		for _, s := range st.Streams {
			for _, t := range s.Totals {
				if t.Latency.Count > 0 {
					n++
				}
			}
		}
	}
	return n <= 1
}

// mergeInOrder is one merged stream's seconds from its inputs, each
// goroutine's summarizers of the packed inputs' records, and the merged
// seconds' histograms summed by op.
func mergeInOrder(ctx context.Context, ins []*input, workers int) ([]Second, [][]*summarizer, map[string]*[3]*pagedHist, error) {
	end := int64(0) // past the last merged second any input can reach
	for _, in := range ins {
		if l := in.last(); l >= 0 {
			end = max(end, min(centerSecond(l, in.shift), maxT)+2)
		}
	}
	per := (end + int64(workers) - 1) / int64(workers)
	per = max((per+chunkSeconds-1)/chunkSeconds*chunkSeconds, chunkSeconds)
	ranges := [][2]int64{}
	for lo := int64(0); lo < end; lo += per {
		ranges = append(ranges, [2]int64{lo, min(lo+per, end)})
	}
	outs := make([]rangeMerged, len(ranges))
	g, gctx := errgroup.WithContext(ctx)
	for ri, rg := range ranges {
		g.Go(func() error {
			var err error
			outs[ri], err = mergeRange(gctx, ins, rg[0], rg[1])
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, nil, err
	}
	hists := map[string]*[3]*pagedHist{}
	sums := make([][]*summarizer, len(ranges))
	for ri, o := range outs {
		sums[ri] = o.sums
		for op, acc := range o.totals {
			dst := hists[op]
			if dst == nil {
				hists[op] = acc
				continue
			}
			for k, h := range acc {
				if dst[k] == nil {
					dst[k] = h
				} else if err := dst[k].merge(h); err != nil {
					return nil, nil, nil, fmt.Errorf("op %s: %w", op, err)
				}
			}
		}
	}
	last := int64(-1)
	var secs []Second
	for _, o := range outs {
		last = max(last, o.last)
		secs = append(secs, o.secs...)
	}
	return secs[:last+1], sums, hists, nil
}

// rangeMerged is what mergeRange returns: the merged seconds of its
// range, the last that received anything (-1: none), a summarizer per
// packed input of its records centered in the range, and the range's
// merged histograms summed by op.
type rangeMerged struct {
	secs   []Second
	last   int64
	sums   []*summarizer
	totals map[string]*[3]*pagedHist
}

// mergeRange merges the seconds lo..hi-1: the records whose center lies
// in lo-1..hi (those of lo-1 and hi may put ticks in the range), chunk by
// chunk.
func mergeRange(ctx context.Context, ins []*input, lo, hi int64) (rangeMerged, error) {
	dec := newDecoder()
	defer dec.Close()
	m := newSecondMerger(func(t int64) bool { return t >= lo && t < hi })
	m.pool = &pagePool{}
	m.totals = map[string]*[3]*pagedHist{}
	curs := make([]*inputCursor, len(ins))
	sums := make([]*summarizer, len(ins))
	for i, in := range ins {
		curs[i] = newInputCursor(in, dec, lo-1)
		if in.ps != nil && !in.keepTotals {
			sums[i] = newSummarizer(in.window, true)
			sums[i].noHists = true // mergeRange adds the latencies with the merged second's
		}
	}
	out := make([]Second, 0, hi-lo)
	var buf []byte
	for cs := lo; cs < hi; cs += chunkSeconds {
		if err := ctx.Err(); err != nil {
			return rangeMerged{}, err
		}
		ce := min(cs+chunkSeconds, hi)
		for i, cur := range curs {
			for {
				ok, err := cur.next(ce)
				if err != nil {
					return rangeMerged{}, fmt.Errorf("%s: %w", cur.name(), err)
				}
				if !ok {
					break
				}
				o, hists := cur.record()
				var also *pagedHist
				if c := cur.center; sums[i] != nil && c >= lo && c < hi { // the part's totals: counted once
					if err := sums[i].add(cur.t, o, hists); err != nil {
						return rangeMerged{}, err
					}
					if hists.b[0] != nil {
						also = sums[i].latency(o.Op)
					}
				}
				if err := m.addAlso(cur.t, o, ins[i].shift, hists, also); err != nil {
					return rangeMerged{}, err
				}
			}
		}
		var err error
		if out, buf, err = m.emit(cs, ce, out, buf); err != nil {
			return rangeMerged{}, err
		}
	}
	return rangeMerged{secs: out, last: m.max, sums: sums, totals: m.totals}, nil
}

// inputCursor reads an input's records in T order, one at a time.
type inputCursor struct {
	in     *input
	ps     *packedSeconds // the cursor's own: its next frame
	dec    *frameDecoder
	raw    []byte
	c      cursor
	left   uint64 // op records left in the current second
	t      int64  // the current record's second
	center int64  // its merged second
	rec    opRecord
	si, oi int // older inputs: the next record is secs[si].Ops[oi]
	held   bool
	err    error // sticky
}

// newInputCursor starts at the first record centered at from or later.
func newInputCursor(in *input, dec *frameDecoder, from int64) *inputCursor {
	c := &inputCursor{in: in, dec: dec}
	if in.ps != nil {
		f := 0
		for f+1 < len(in.ps.frames) && centerSecond(in.ps.frames[f+1].first, in.shift) < from {
			f++
		}
		c.ps = &packedSeconds{ops: in.ps.ops, classes: in.ps.classes, last: in.ps.last, frames: in.ps.frames, next: f, lazy: in.ps.lazy,
			split: in.ps.split}
	}
	c.skipTo(from)
	return c
}

func (c *inputCursor) name() string { return fmt.Sprintf("%s: step %d", c.in.file, c.in.step+1) }

// skipTo drops the records centered before from.
func (c *inputCursor) skipTo(from int64) {
	for {
		ok, err := c.next(from)
		if err != nil || !ok {
			return // an error is kept for the next read
		}
		if c.center >= from {
			c.held = true
			return
		}
	}
}

// next moves to the next record centered before `before`+1: false when
// the next one lies later (it is held for the next call) or there is none.
func (c *inputCursor) next(before int64) (bool, error) {
	if c.err != nil {
		return false, c.err
	}
	if !c.held {
		ok, err := c.advance()
		if err != nil || !ok {
			c.err = err
			return false, err
		}
	}
	c.held = c.center > before
	return !c.held, nil
}

// advance reads the next record, whatever its second.
func (c *inputCursor) advance() (bool, error) {
	if c.ps == nil {
		for c.si < len(c.in.secs) && c.oi >= len(c.in.secs[c.si].Ops) {
			c.si, c.oi = c.si+1, 0
		}
		if c.si >= len(c.in.secs) {
			return false, nil
		}
		c.t = c.in.secs[c.si].T
		c.oi++
		c.center = centerSecond(c.t, c.in.shift)
		return true, nil
	}
	for c.left == 0 {
		if c.c.i >= len(c.c.b) {
			raw, err := c.ps.nextFrame(c.dec, c.raw)
			if err != nil || raw == nil {
				return false, err
			}
			c.raw, c.c = raw, cursor{b: raw}
		}
		c.t, c.left = c.c.varint(), c.c.uvarint()
		if c.c.bad || c.t > maxT || c.t < -maxT || c.left > uint64(len(c.ps.ops)) {
			return false, fmt.Errorf("%w: second %d of %d ops", errPackedSeconds, c.t, c.left)
		}
	}
	if err := c.ps.readOp(&c.c, &c.rec); err != nil {
		return false, err
	}
	c.left--
	c.center = centerSecond(c.t, c.in.shift)
	return true, nil
}

// record is the current record and, when packed, its histograms.
func (c *inputCursor) record() (*OpSecond, *packedHists) {
	if c.ps == nil {
		return &c.in.secs[c.si].Ops[c.oi-1], nil
	}
	return &c.rec.OpSecond, &c.rec.hist
}
