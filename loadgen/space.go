package loadgen

import (
	"context"
	"math/rand/v2"
	"strconv"
	"sync/atomic"

	"github.com/objbench/objbench/distributed"
	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/payload"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/workload"
)

// space is a key space resolved to stores: one per bucket it names (the
// target's when none). A pool-mode space in one bucket has its keyPool.
type space struct {
	ks      workload.KeySpace
	buckets []string
	stores  []storage.Store
	prefix  string // full key prefix: namespace included unless existing or bare
	pool    *keyPool
	owned   []*ownNumbers // COSBench's key layout: the run's record, per bucket
}

// key is the full key of object number n.
func (sp *space) key(n int64) string {
	var buf [20]byte
	return sp.prefix + string(strconv.AppendInt(buf[:0], n, 10)) + sp.ks.Suffix
}

// space resolves ks (of stream s) once per step; pools persist across the
// run so that what one stage writes, the next reads.
func (r *runState) space(ctx context.Context, s workload.Stream, ks workload.KeySpace, sizes workload.Selector) (*space, error) {
	sp := &space{ks: ks, buckets: ks.Buckets, prefix: r.cfg.Namespace + ks.Prefix}
	if ks.Existing || r.cfg.BareKeys {
		sp.prefix = ks.Prefix
	}
	if len(ks.Buckets) == 0 {
		sp.buckets = []string{""}
	}
	for _, b := range sp.buckets {
		st, err := r.stores.bucket(ctx, s.Storage, b)
		if err != nil {
			return nil, err
		}
		sp.stores = append(sp.stores, st)
	}
	if r.cfg.BareKeys && ks.Index != nil && !ks.Existing {
		for i, b := range sp.buckets {
			sp.owned = append(sp.owned, r.data.ownedFor(s.Storage, b, sp.stores[i], sp.prefix, ks.Suffix))
		}
	}
	if ks.Index == nil && len(sp.stores) == 1 {
		p, err := r.data.pool(ctx, sp.stores[0], sp.buckets[0], sp.prefix, ks, sizes)
		if err != nil {
			return nil, err
		}
		sp.pool = p
	}
	return sp, nil
}

// ids identify the space's objects across stages, one per bucket.
func (sp *space) ids() []string {
	out := make([]string, len(sp.buckets))
	for i, b := range sp.buckets {
		out[i] = b + "\x00" + sp.prefix + "\x00" + sp.ks.Suffix
	}
	return out
}

// opDef is one op of a stream's mix with where it works and what it writes.
type opDef struct {
	op      metrics.Op
	sp      *space
	sizes   workload.Selector
	check   *payload.Block // the block the space's objects were written from
	refills bool           // the stream also writes into this op's pool
	exact   bool           // reads: every object of the space has size sizes.Min
	// verify: reads check what they read; trailer: by COSBench's
	// hashCheck trailer (the space's objects carry one, or were not
	// written by this run), else against the bytes this run wrote.
	// hashCheck: writes append the trailer.
	verify, trailer, hashCheck bool
	idxSeq                     atomic.Uint64 // cursor of a sequential index selector
	bktSeq                     atomic.Uint64 // cursor of a sequential bucket selector
	sizeSeq                    atomic.Uint64 // cursor of a sequential size selector
	// notImpl counts the op's consecutive answers "not implemented by
	// this target"; past maxNotImplemented the op is off for the step.
	notImpl atomic.Int64
	off     atomic.Bool
}

// opSampler draws one worker's indices, buckets and sizes for an opDef.
type opSampler struct {
	index  func() int64 // nil in pool mode
	bucket func() int64 // 0-based store
	size   func() int64
}

func (d *opDef) sampler(rng *rand.Rand, wk distributed.Worker) opSampler {
	s := opSampler{size: d.sizes.Sampler(rng, func() uint64 { return d.sizeSeq.Add(1) - 1 })}
	if ks := d.sp.ks; ks.Index != nil {
		s.index = ks.Index.Sampler(rng, func() uint64 { return d.idxSeq.Add(1) - 1 })
		if writes := changesPool(d.op) || d.op == metrics.OpCAS; writes && !wk.Solo() {
			draw, lo, n, r := s.index, ks.Index.Min, int64(wk.N()), int64(wk.Rank)
			// Of a run split across processes, writes and deletes of
			// numbered objects keep to this worker's numbers (lo+r,
			// lo+r+N...): the drawn number moves down to the nearest one.
			s.index = func() int64 {
				x := draw()
				x -= ((x-lo-r)%n + n) % n
				if x < lo {
					x += n
				}
				return x
			}
		}
	}
	n := int64(len(d.sp.stores))
	switch {
	case d.sp.ks.BucketPick != nil:
		pick := d.sp.ks.BucketPick.Sampler(rng, func() uint64 { return d.bktSeq.Add(1) - 1 })
		s.bucket = func() int64 { return min(max(pick()-1, 0), n-1) }
	case n == 1:
		s.bucket = func() int64 { return 0 }
	default:
		s.bucket = func() int64 { return rng.Int64N(n) }
	}
	return s
}

// keySeed makes an object's bytes a function of its key alone, so a
// verifying read regenerates them and racing overwrites of one key agree.
func keySeed(key string) uint64 {
	h := uint64(14695981039346656037) // FNV-1a
	for i := 0; i < len(key); i++ {
		h ^= uint64(key[i])
		h *= 1099511628211
	}
	return h
}

// enumerate is the fixed work of visiting every object of an index space
// once (prepare, cleanup), buckets interleaved: of a run split across
// processes, this worker's contiguous part.
func (sp *space) enumerate(op metrics.Op, share distributed.Worker) fixedWork {
	nb := int64(len(sp.stores))
	idx := *sp.ks.Index
	per := idx.Count()
	total := per * nb
	if per > 0 && total/nb != per {
		total = 1 << 62 // absurdly many: the stream's bounds end it first
	}
	lo, hi := share.Range(total)
	return fixedWork{n: hi - lo, at: func(w *worker, i int64) task {
		i += lo
		num := idx.At(i / nb)
		key := sp.key(num)
		t := task{op: op, store: sp.stores[i%nb], key: key, seed: keySeed(key), own: sp.ownAt(int(i % nb)), num: num}
		if op == metrics.OpPut {
			t.size = w.prepSize(i)
		}
		return t
	}}
}
