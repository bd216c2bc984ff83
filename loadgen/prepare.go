package loadgen

import (
	"context"
	"fmt"
	"slices"

	"github.com/objbench/objbench/corpus"
	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/workload"
)

// prepareStream writes every object of sp's key space once; nil when there
// is nothing to write.
func (r *runState) prepareStream(ctx context.Context, s *streamRun, sp workload.Stream) (*streamRun, error) {
	ks := sp.Objects
	if ks.Existing || (ks.Index == nil && ks.Count == 0 && ks.Source == "") {
		return nil, nil
	}
	space, err := r.space(ctx, sp, ks, sp.Sizes())
	if err != nil {
		return nil, err
	}
	if err := r.stores.checkVersioned(ctx, sp, space.stores); err != nil {
		return nil, err
	}
	// A run split across processes prepares each object once: this
	// worker its contiguous part; the others' objects join its pool for
	// reads once everyone is done (keyPool.adopt).
	wk := r.cfg.Worker
	switch {
	case ks.Source != "":
		if s.work.fixed, err = r.corpusWork(ctx, sp, space); err != nil {
			return nil, fmt.Errorf("stream %s: %w", sp.Name, err)
		}
	case ks.Index != nil:
		r.data.wrote(space, sp.Data, sp.Sizes())
		s.work.fixed = space.enumerate(metrics.OpPut, wk)
	default:
		r.data.wrote(space, sp.Data, sp.Sizes())
		// The keys are made when needed, never listed: key(first+i).
		first, store, pool := space.pool.plan(ks.Count), space.stores[0], space.pool
		lo, hi := wk.Range(int64(ks.Count))
		if !wk.Solo() {
			size := preparedSizes(sp.Sizes(), r.cfg.Seed)
			for i := range int64(ks.Count) {
				if i < lo || i >= hi {
					pool.addForeign(pool.key(first+i), size(i))
				}
			}
		}
		s.work.fixed = fixedWork{n: hi - lo, at: func(w *worker, i int64) task {
			k := pool.key(first + lo + i)
			return task{op: metrics.OpPut, store: store, key: k, size: w.prepSize(lo + i), seed: keySeed(k), pool: pool}
		}}
	}
	s.bounds = workload.Bounds{}
	s.workers = int(min(int64(s.workers), s.work.fixed.n))
	if s.workers < 1 {
		return nil, nil
	}
	return s, nil
}

// corpusWork uploads this worker's part of the corpus sp's key space
// names (its items are read as they are uploaded; the others' join the
// space's pool for reads).
func (r *runState) corpusWork(ctx context.Context, sp workload.Stream, space *space) (fixedWork, error) {
	ks := sp.Objects
	c, err := corpus.Open(ctx, ks.Source, ks.Count)
	if err != nil {
		return fixedWork{}, err
	}
	r.data.closeAtEnd(c)
	r.data.wrote(space, sp.Data, corpusSizes(c.Stats()))
	lo, hi := r.cfg.Worker.Range(c.Len())
	if err := foreignItems(ctx, c, space, lo, hi); err != nil {
		return fixedWork{}, err
	}
	feed := newCorpusFeed(ctx, c, lo, hi)
	r.data.closeAtEnd(feed)
	store, pool := space.stores[0], space.pool
	return fixedWork{n: hi - lo, pull: func() (task, bool, string) {
		it, ok, cause := feed.next()
		if !ok {
			return task{}, false, cause
		}
		return task{op: metrics.OpPut, store: store, key: space.prefix + it.Name, size: it.Size, src: it, pool: pool}, true, ""
	}}, nil
}

// corpusSizes is the size range of a corpus's items.
func corpusSizes(st corpus.Stats) workload.Selector {
	if st.Min == st.Max {
		return workload.Const(st.Min)
	}
	return workload.Selector{Kind: workload.SelUniform, Min: st.Min, Max: st.Max}
}

// mainStream resolves each op of the mix to its key space.
func (r *runState) mainStream(ctx context.Context, s *streamRun, sp workload.Stream) (*streamRun, error) {
	var err error
	if s.work.mix, err = newMix(sp.Mix); err != nil {
		return nil, err
	}
	for j, m := range sp.Mix {
		op := s.work.mix.ops[j]
		space, err := r.space(ctx, sp, sp.OpObjects(m), sp.OpSizes(m))
		if err != nil {
			return nil, err
		}
		if err := r.stores.checkVersioned(ctx, sp, space.stores); err != nil {
			return nil, err
		}
		if op == metrics.OpMultipart && slices.ContainsFunc(space.stores, func(st storage.Store) bool { _, ok := st.(storage.Multiparter); return !ok }) {
			return nil, fmt.Errorf("stream %s: multipart needs a store with multipart uploads (S3), not this one", sp.Name)
		}
		if p := space.pool; p != nil && changesPool(op) {
			p.mutable = true
		}
		data := sp.Data
		data.HashCheck = data.HashCheck || m.HashCheck
		if creates(op) {
			r.data.wrote(space, data, sp.OpSizes(m))
		}
		s.work.ops = append(s.work.ops, &opDef{op: op, sp: space, sizes: sp.OpSizes(m), hashCheck: data.HashCheck,
			verify: sp.Data.Verify && (m.HashCheck || !anyHashCheck(sp.Mix))})
	}
	if err := r.readsWhatWasWritten(s, sp); err != nil { // after the writes: a stream may read what it writes
		return nil, err
	}
	if !s.work.mix.has(metrics.OpRangeGet) {
		s.work.getRange = sp.RangeSize // no ranged op of its own: --range-size makes every GET ranged
	}
	for _, d := range s.work.ops {
		if p := d.sp.pool; p != nil {
			p.adopt() // the other workers' prepared objects, once its writers are known
		}
		if err := r.data.fromDataset(ctx, d.sp); err != nil {
			return nil, fmt.Errorf("stream %s: %w", sp.Name, err)
		}
	}
	for _, d := range s.work.ops {
		d.refills = d.sp.pool != nil && s.putsInto(d.sp.pool)
		if p := d.sp.pool; p != nil && d.op != metrics.OpList && d.op != metrics.OpListVersions && d.op != metrics.OpPut && d.op != metrics.OpMultipart &&
			p.count() == 0 && !s.putsInto(p) {
			return nil, fmt.Errorf("stream %s reads objects under %q, but none exist there: prepare them first", sp.Name, p.prefix)
		}
	}
	return s, nil
}

// readsWhatWasWritten tells each op of s how the objects it works on
// were written by earlier ops, its own stream's included: the block to
// check reads against, and the sizes reads may assume.
func (r *runState) readsWhatWasWritten(s *streamRun, sp workload.Stream) error {
	for j, d := range s.work.ops {
		data, w, ok := r.data.writtenTo(d.sp)
		if !ok {
			data = sp.Data
		}
		// Objects written with a trailer are checked by it; objects this
		// run did not write, when the read asks for COSBench's hashCheck.
		d.trailer = ok && data.HashCheck || !ok && sp.Mix[j].HashCheck
		var err error
		if d.check, err = r.data.block(data); err != nil {
			return err
		}
		if ok && d.op != metrics.OpPut && d.op != metrics.OpMultipart {
			d.sizes = workload.Const(w[0])            // what reads of numbered objects may assume
			d.exact = w[0] == w[1] && !r.cfg.BareKeys // every object has that size (under COSBench's names others may be there too)
		}
	}
	return nil
}

// anyHashCheck reports whether some op of the mix has COSBench's
// hashCheck: then only those ops verify what they read, as in COSBench,
// where the stream's Verify comes from them.
func anyHashCheck(mix []workload.OpWeight) bool {
	return slices.ContainsFunc(mix, func(m workload.OpWeight) bool { return m.HashCheck })
}

// putsInto reports whether the stream itself adds objects to pool p.
func (s *streamRun) putsInto(p *keyPool) bool {
	return slices.ContainsFunc(s.work.ops, func(d *opDef) bool {
		return d.sp.pool == p && creates(d.op)
	})
}
