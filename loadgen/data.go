package loadgen

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/objbench/objbench/distributed"
	"github.com/objbench/objbench/payload"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/workload"
)

// runData is what a run's keys and bodies are made of and what it knows
// it wrote: its key pools (kept across stages, so that what one stage
// writes the next reads), payload blocks, how each space's objects were
// written (their data and sizes, for readers), the ETags and versions its
// writes returned (when some op needs them), COSBench's key layout's
// record of the numbers it wrote (barekeys.go), and the corpora prepare
// stages read, closed when the run ends.
type runData struct {
	base      *payload.Block // Config.Block
	seed      uint64
	worker    distributed.Worker
	namespace string
	dataset   bool // Config.Dataset
	pools     map[string]*keyPool
	blocks    map[workload.Data]*payload.Block
	ratios    map[string]workload.Data // how each space's data was made (compressibility, pattern)
	written   map[string][2]int64      // the smallest and largest size each space was written with
	book      objectBook
	mu        sync.Mutex // guards owned, ownedOrder and closers
	// owned is COSBench's key layout's record of what the run wrote, by
	// bucket and naming; ownedOrder keeps them in order.
	owned      map[string]*ownNumbers
	ownedOrder []string
	closers    []io.Closer
}

func newRunData(cfg Config) *runData {
	d := &runData{base: cfg.Block, seed: cfg.Seed, worker: cfg.Worker, namespace: cfg.Namespace, dataset: cfg.Dataset,
		pools: map[string]*keyPool{}, blocks: map[workload.Data]*payload.Block{}, ratios: map[string]workload.Data{},
		written: map[string][2]int64{}, owned: map[string]*ownNumbers{}}
	d.book.wanted = wantsBook(cfg.Spec)
	return d
}

// block is the payload block for data made as d says (compressibility,
// pattern), made once per run.
func (rd *runData) block(d workload.Data) (*payload.Block, error) {
	k := workload.Data{Compress: d.Compress, Pattern: d.Pattern}
	if k.Compress <= 1 {
		k.Compress = 0
	}
	if k == (workload.Data{}) {
		return rd.base, nil
	}
	if b, ok := rd.blocks[k]; ok {
		return b, nil
	}
	var b *payload.Block
	var err error
	if k.Pattern == workload.PatternLetters {
		b, err = payload.NewLettersBlock(rd.base.Size(), rd.seed)
	} else {
		b, err = payload.NewBlock(rd.base.Size(), rd.seed, k.Compress)
	}
	if err != nil {
		return nil, err
	}
	rd.blocks[k] = b
	return b, nil
}

// pool returns the key pool under prefix in bucket, listing existing
// objects the first time one is used.
func (rd *runData) pool(ctx context.Context, st storage.Store, bucket, prefix string, ks workload.KeySpace, sizes workload.Selector) (*keyPool, error) {
	k := bucket + "\x00" + prefix
	if p, ok := rd.pools[k]; ok {
		return p, nil
	}
	p := newKeyPool(prefix, sizes.Min)
	if w := rd.worker; !w.Solo() {
		p.tag = "w" + strconv.Itoa(w.Rank) + "-"
	}
	if sizes.Kind != workload.SelConst || ks.Source != "" || ks.Existing {
		p.varySizes() // remember each object's size
	}
	if ks.Existing {
		err := storage.ListUnder(ctx, st, prefix, func(o storage.ObjectInfo) error {
			p.live.add(o.Key, o.Size)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("list existing objects under %q: %w", prefix, err)
		}
		if p.live.len() == 0 {
			return nil, fmt.Errorf("no objects under %q to read", prefix)
		}
	}
	rd.pools[k] = p
	return p, nil
}

// forgetPools empties the run's pools under prefix: their objects are
// going.
func (rd *runData) forgetPools(prefix string) {
	for _, p := range rd.pools {
		if strings.HasPrefix(p.prefix, prefix) && strings.HasPrefix(p.prefix, rd.namespace) {
			p.forget()
		}
	}
}

// wrote remembers how a space's objects are written, for later readers:
// verification needs the data's block, ranged reads a size to stay within.
// Each bucket is remembered on its own: a read over some of the buckets a
// prepare wrote finds what they hold.
func (rd *runData) wrote(sp *space, data workload.Data, sizes workload.Selector) {
	for _, id := range sp.ids() {
		rd.ratios[id] = data
		w, ok := rd.written[id]
		if !ok {
			w = [2]int64{sizes.Min, sizes.Max}
		}
		rd.written[id] = [2]int64{min(w[0], sizes.Min), max(w[1], sizes.Max)}
	}
}

// writtenTo is how sp's objects were written by earlier ops: how the data
// was made (in the first of its buckets written) and the smallest and
// largest size over its buckets; ok is false when none was written.
func (rd *runData) writtenTo(sp *space) (data workload.Data, sizes [2]int64, ok bool) {
	for _, id := range sp.ids() {
		w, found := rd.written[id]
		if !found {
			continue
		}
		if !ok {
			data, sizes, ok = rd.ratios[id], w, true
			continue
		}
		sizes = [2]int64{min(sizes[0], w[0]), max(sizes[1], w[1])}
	}
	return data, sizes, ok
}

// fromDataset fills a pool of a data set that no stage of this run has
// written yet with what the data set holds (listed once), so a later run
// reads what an earlier one prepared; new keys continue after them.
func (rd *runData) fromDataset(ctx context.Context, sp *space) error {
	p := sp.pool
	if !rd.dataset || p == nil || p.listed || p.next.Load() > 0 || p.count() > 0 || sp.ks.Existing {
		return nil
	}
	p.listed = true
	listed := keySet{prefix: p.prefix, varied: true} // each listed object's own size
	next := int64(0)
	err := storage.ListUnder(ctx, sp.stores[0], p.prefix, func(o storage.ObjectInfo) error {
		listed.add(o.Key, o.Size)
		// New keys go after the highest number the data set holds.
		if n, err := strconv.ParseInt(strings.TrimPrefix(o.Key, p.prefix), 10, 64); err == nil && n >= next {
			next = n + 1
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("list the data set under %q: %w", p.prefix, err)
	}
	p.mu.Lock()
	p.live = listed
	p.mu.Unlock()
	p.next.Store(next)
	return nil
}

// ownedFor is the record of the numbered key space under prefix and
// suffix in bucket b of storage st (one per run).
func (rd *runData) ownedFor(st *workload.Storage, b string, store storage.Store, prefix, suffix string) *ownNumbers {
	k := storeKey(st, b) + "\x00" + prefix + "\x00" + suffix
	rd.mu.Lock()
	defer rd.mu.Unlock()
	if o, ok := rd.owned[k]; ok {
		return o
	}
	o := newOwnNumbers(store, b, prefix, suffix)
	rd.owned[k], rd.ownedOrder = o, append(rd.ownedOrder, k)
	return o
}

// ownedIn is the records kept of bucket b's key spaces (nil: of every
// bucket), in the order they were made.
func (rd *runData) ownedIn(b *bucketRef) []*ownNumbers {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	var out []*ownNumbers
	for _, k := range rd.ownedOrder {
		if b == nil || strings.HasPrefix(k, storeKey(b.st, b.name)+"\x00") {
			out = append(out, rd.owned[k])
		}
	}
	return out
}

// closeAtEnd keeps c (a corpus being uploaded) open until the run ends.
func (rd *runData) closeAtEnd(c io.Closer) {
	rd.mu.Lock()
	rd.closers = append(rd.closers, c)
	rd.mu.Unlock()
}

// closeAll closes what closeAtEnd kept, the last first (a corpus's feed
// before its corpus); a corpus's reader failing to exit changes nothing
// the run measured.
func (rd *runData) closeAll() {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	for i := len(rd.closers) - 1; i >= 0; i-- {
		_ = rd.closers[i].Close()
	}
	rd.closers = nil
}
