package loadgen

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/objbench/objbench/distributed"
	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/workload"
)

// cleanup deletes objects this run wrote, and nothing else: the numbered
// objects of a stream's index key space (always below the namespace), or
// whatever a listing of the namespace finds.
func (r *runState) cleanup(ctx context.Context, st workload.Stage) (result.Step, error) {
	streams := st.Streams
	if len(streams) == 0 {
		streams = []workload.Stream{{Name: "cleanup", Concurrency: []int{8}}}
	}
	var runs []*streamRun
	var listings []*listing
	defer func() {
		for _, l := range listings {
			_ = l.Close()
		}
	}()
	for _, sp := range streams {
		fw, l, err := r.cleanupWork(ctx, sp)
		if l != nil {
			listings = append(listings, l)
		}
		if err != nil {
			return result.Step{}, err
		}
		if fw.n == 0 {
			continue
		}
		runs = append(runs, &streamRun{name: cmpOr(sp.Name, "cleanup"), run: r,
			work:    streamWork{block: r.cfg.Block, fixed: fw, sizes: workload.Const(0), sizeSeq: new(atomic.Uint64)},
			workers: int(max(1, min(r.cfg.Worker.Share(int64(sp.MaxConcurrency())), fw.n)))})
	}
	notes := r.ledger.takeNotes()
	if len(runs) == 0 {
		return result.Step{Stage: st.Name, Kind: string(st.Kind), Start: time.Now(), Notes: notes}, nil
	}
	step, err := r.measure(ctx, st, 0, runs)
	step.Notes = append(notes, step.Notes...)
	for _, l := range listings {
		if why := l.readErr(); why != nil { // its deletes stopped short
			note := fmt.Sprintf("cleanup left objects of this run: %v", why)
			step.Notes = append(step.Notes, note)
			r.ledger.leftover(note)
		}
	}
	if err == nil {
		r.sweep(ctx, st, &step)
	}
	return step, err
}

// cleanupWork is the deletes of one stream of a cleanup stage, and the
// listing they read (nil for numbered objects); close it when done.
func (r *runState) cleanupWork(ctx context.Context, sp workload.Stream) (fixedWork, *listing, error) {
	ks := sp.Objects
	if ks.Existing {
		return fixedWork{}, nil, nil // never delete what this run did not write
	}
	if ks.Index != nil {
		space, err := r.space(ctx, sp, ks, workload.Const(0))
		if err != nil {
			return fixedWork{}, nil, err
		}
		if space.owned != nil { // COSBench's key layout: what the run wrote, by its record
			fw, named := space.enumerateOwned()
			r.ledger.note(fmt.Sprintf("stream %s: deleted only the objects this run wrote: %d of the %d it names (COSBench's key layout)", cmpOr(sp.Name, "cleanup"), fw.n, named))
			return fw, nil, nil
		}
		fw := space.enumerate(metrics.OpDelete, r.cfg.Worker)
		for _, rank := range r.ledger.adopted { // a dead worker's part too
			fw = fw.then(space.enumerate(metrics.OpDelete, distributed.Worker{Rank: rank, Size: r.cfg.Worker.N()}))
		}
		return fw, nil, nil
	}
	stores := r.stores.every()
	if len(ks.Buckets) > 0 {
		stores = stores[:0:0]
		for _, b := range ks.Buckets {
			s, err := r.stores.bucket(ctx, sp.Storage, b)
			if err != nil {
				return fixedWork{}, nil, err
			}
			stores = append(stores, s)
		}
	}
	prefix := r.cfg.Namespace + ks.Prefix
	if r.stores.versioned {
		// Every version and delete marker the run made, and nothing else.
		note, err := r.deleteVersions(ctx, stores, prefix)
		if err != nil {
			return fixedWork{}, nil, err
		}
		if note != "" {
			r.ledger.note(note)
		}
		r.data.forgetPools(prefix)
		return fixedWork{}, nil, nil
	}
	// The listing is checked, not trusted: a key outside prefix makes it
	// a store fault, and nothing it listed is deleted. A transient
	// failure is tried again. The workers' meeting markers are theirs to
	// remove; of a run split across processes, each deletes the listed
	// keys that hash to it, so every key is deleted once (ownKey).
	l, err := listUnder(ctx, stores, prefix, r.cfg.Namespace, r.ledger.ownKey)
	if err != nil {
		return fixedWork{}, nil, fmt.Errorf("cleanup: list %q: %w", prefix, err)
	}
	if note := l.refusal(); note != "" {
		r.ledger.note(note)
		r.ledger.leftover(note)
	}
	r.data.forgetPools(prefix)
	return l.work(batchSize(sp)), l, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
