package merge

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/objbench/objbench/internal/resultpack"
	"github.com/objbench/objbench/result"
)

// chunkSeconds is how many merged seconds are summed before they are
// written: their accumulators stay in cache while every file adds to them.
const chunkSeconds = 2

// input is one part's stream feeding a merged stream.
type input struct {
	part, step, stream int
	shift              int64
	file               string
	ps                 *resultpack.Packed // version 5 and later
	secs               []result.Second    // older versions, in T order
	window             result.Window
	// keepTotals: the part's totals as its file gives them serve (see
	// ownTotalsServe), so the merge does not sum them again.
	keepTotals bool
}

func (in *input) last() int64 {
	if in.ps != nil {
		return in.ps.Last()
	}
	if len(in.secs) == 0 {
		return -1
	}
	return in.secs[len(in.secs)-1].T
}

// feedInOrder merges every planned stream from its inputs in the order of
// its merged seconds, `workers` goroutines each taking a run of them, and
// gives the packed parts their totals.
func feedInOrder(ctx context.Context, pl *mergePlan, parts []part, packed []map[[2]int]*resultpack.Packed, workers int) error {
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
			totals, err := partTotalsOf(in.window, sums, k)
			if err != nil {
				return err
			}
			parts[in.part].run.Steps[in.step].Streams[in.stream].Totals = totals
		}
	}
	return nil
}

// partTotals is what one range of a merge summed of one packed input's
// records centered in it: their counts, and their latencies by op.
type partTotals struct {
	sum *result.Summary
	lat map[string]*resultpack.Paged
}

// latency is op's latencies being summed, made when it is the first.
func (p *partTotals) latency(op string) *resultpack.Paged {
	h := p.lat[op]
	if h == nil {
		h = &resultpack.Paged{}
		p.lat[op] = h
	}
	return h
}

// partTotalsOf is input k's totals: what every range (sums[range][k])
// summed of it, put together in the ranges' order.
func partTotalsOf(w result.Window, sums [][]*partTotals, k int) ([]result.OpTotal, error) {
	sum := result.NewSummary(w)
	lat := map[string]*resultpack.Paged{}
	for _, group := range sums {
		if err := sum.Merge(group[k].sum); err != nil {
			return nil, err
		}
		for op, h := range group[k].lat {
			if lat[op] == nil {
				lat[op] = h
			} else if err := lat[op].Merge(h); err != nil {
				return nil, fmt.Errorf("op %s: %w", op, err)
			}
		}
	}
	var sw resultpack.SplitWriter
	for op, h := range lat {
		enc, _, err := h.Pack(&sw, nil, nil)
		if err == nil {
			err = sum.AddHistograms(op, enc, "", "")
		}
		if err != nil {
			return nil, err
		}
	}
	return sum.Totals(), nil
}

// ownTotalsServe says whether a packed part's totals, as its file gives
// them, are all its line in the workers table needs: its main steps hold
// one op total with latencies at most, whose p99 is the line's. Else the
// line's p99 is of the latencies of several totals, which a file does
// not hold, and the merge sums them while it reads the seconds. (Summing
// every worker's latencies beside the merged seconds' took a tenth of a
// 100-worker merge: a hundred accumulators do not stay in cache.)
func ownTotalsServe(r *result.Run) bool {
	n := 0
	for _, st := range r.Steps {
		if st.Kind != result.KindMain {
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

// mergeInOrder is one merged stream's seconds from its inputs, what each
// goroutine summed of the packed inputs' records, and the merged
// seconds' histograms summed by op.
func mergeInOrder(ctx context.Context, ins []*input, workers int) ([]result.Second, [][]*partTotals, map[string]*[3]*resultpack.Paged, error) {
	end := int64(0) // past the last merged second any input can reach
	for _, in := range ins {
		if l := in.last(); l >= 0 {
			end = max(end, min(centerSecond(l, in.shift), resultpack.MaxT)+2)
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
	hists := map[string]*[3]*resultpack.Paged{}
	sums := make([][]*partTotals, len(ranges))
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
				} else if err := dst[k].Merge(h); err != nil {
					return nil, nil, nil, fmt.Errorf("op %s: %w", op, err)
				}
			}
		}
	}
	last := int64(-1)
	var secs []result.Second
	for _, o := range outs {
		last = max(last, o.last)
		secs = append(secs, o.secs...)
	}
	return secs[:last+1], sums, hists, nil
}

// rangeMerged is what mergeRange returns: the merged seconds of its
// range, the last that received anything (-1: none), what it summed of
// each packed input's records centered in the range, and the range's
// merged histograms summed by op.
type rangeMerged struct {
	secs   []result.Second
	last   int64
	sums   []*partTotals
	totals map[string]*[3]*resultpack.Paged
}

// mergeRange merges the seconds lo..hi-1: the records whose center lies
// in lo-1..hi (those of lo-1 and hi may put ticks in the range), chunk by
// chunk.
func mergeRange(ctx context.Context, ins []*input, lo, hi int64) (rangeMerged, error) {
	dec := resultpack.NewDecoder()
	defer dec.Close()
	m := newSecondMerger(func(t int64) bool { return t >= lo && t < hi })
	m.pool = &resultpack.Pool{}
	m.totals = map[string]*[3]*resultpack.Paged{}
	curs := make([]*inputCursor, len(ins))
	sums := make([]*partTotals, len(ins))
	for i, in := range ins {
		curs[i] = newInputCursor(in, dec, lo-1)
		if in.ps != nil && !in.keepTotals {
			// Counts only: the latencies are added with the merged second's.
			sums[i] = &partTotals{sum: result.NewSummary(in.window), lat: map[string]*resultpack.Paged{}}
		}
	}
	out := make([]result.Second, 0, hi-lo)
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
				var also *resultpack.Paged
				if c := cur.center; sums[i] != nil && c >= lo && c < hi { // the part's totals: counted once
					sums[i].sum.AddCounts(cur.t, o)
					if hists.B[0] != nil {
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

// sortedSeconds is secs in T order (a copy when they were not): a file
// written before version 5, or by hand, may hold them in any order.
func sortedSeconds(secs []result.Second) []result.Second {
	byT := func(a, b result.Second) int { return cmp.Compare(a.T, b.T) }
	if slices.IsSortedFunc(secs, byT) {
		return secs
	}
	secs = slices.Clone(secs)
	slices.SortStableFunc(secs, byT)
	return secs
}
