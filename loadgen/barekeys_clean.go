package loadgen

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/workload"
)

// checkBareWrites refuses to start a run in COSBench's key layout whose
// workload would write over objects already in the store: each naming it
// writes is listed in each of its buckets, and a key of a number it
// writes is one objbench did not write. (Writes of numbers not in the
// run's record are also made only where the key is free: the listing
// says so before the run, the condition holds it during.)
func (r *runState) checkBareWrites(ctx context.Context) error {
	if !r.cfg.Worker.Solo() {
		return errors.New("COSBench's key layout runs in one process, not split across processes")
	}
	for _, n := range bareNamings(r.cfg.Spec) {
		store, err := r.stores.bucket(ctx, n.st, n.bucket)
		if err != nil {
			return err
		}
		found, first := 0, ""
		err = storage.ListUnder(ctx, store, n.prefix, func(o storage.ObjectInfo) error {
			if num, ok := numberOf(o.Key, n.prefix, n.suffix); ok && inRanges(num, n.ranges) {
				if found++; found == 1 {
					first = o.Key
				}
			}
			return nil
		})
		switch {
		case errors.Is(err, storage.ErrBucketNotFound) || storage.ErrorClass(err) == storage.ClassNotFound:
			continue // nothing there yet: init creates it
		case err != nil:
			return fmt.Errorf("COSBench's key layout: list bucket %s under %q: %w", n.bucket, n.prefix, err)
		case found > 0:
			return fmt.Errorf("COSBench's key layout: bucket %s already holds %d of the objects this workload writes (first %s); "+
				"objbench never writes over an object it did not write: delete them first, or run in objbench's own namespace (without --cosbench-keys)",
				n.bucket, found, first)
		}
	}
	return nil
}

// bareNaming is one naming of numbered objects a workload writes in
// COSBench's key layout, in one bucket, and the numbers it writes.
type bareNaming struct {
	st                     *workload.Storage
	bucket, prefix, suffix string
	ranges                 [][2]int64
}

// bareNamings are the namings of numbered objects that spec's prepare
// stages and main stages' writes write, in the order they first appear.
func bareNamings(spec workload.Spec) []*bareNaming {
	names := map[string]*bareNaming{}
	var order []*bareNaming
	add := func(s workload.Stream, ks workload.KeySpace) {
		if ks.Index == nil || ks.Existing {
			return
		}
		buckets := ks.Buckets
		if len(buckets) == 0 {
			buckets = []string{""}
		}
		for _, b := range buckets {
			k := storeKey(s.Storage, b) + "\x00" + ks.Prefix + "\x00" + ks.Suffix
			if names[k] == nil {
				names[k] = &bareNaming{st: s.Storage, bucket: b, prefix: ks.Prefix, suffix: ks.Suffix}
				order = append(order, names[k])
			}
			names[k].ranges = append(names[k].ranges, ks.Index.Ranges()...)
		}
	}
	for _, st := range spec.Stages {
		for _, s := range st.Streams {
			switch st.Kind {
			case workload.KindPrepare:
				add(s, s.Objects)
			case workload.KindMain:
				for _, m := range s.Mix {
					if op, _ := workload.CanonicalOp(m.Op); op == workload.OpPut || op == workload.OpMultipart {
						add(s, s.OpObjects(m))
					}
				}
			}
		}
	}
	return order
}

// numberOf is the number N of key prefix+N+suffix, as COSBench writes
// numbers (decimal, no leading zeros).
func numberOf(key, prefix, suffix string) (int64, bool) {
	if !strings.HasPrefix(key, prefix) || !strings.HasSuffix(key, suffix) || len(key) < len(prefix)+len(suffix)+1 {
		return 0, false
	}
	s := key[len(prefix) : len(key)-len(suffix)]
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && strconv.FormatInt(n, 10) == s
}

func inRanges(n int64, ranges [][2]int64) bool {
	return slices.ContainsFunc(ranges, func(r [2]int64) bool { return n >= r[0] && n <= r[1] })
}

// enumerateOwned is a cleanup's work in COSBench's key layout: the objects
// of the space that the run's record holds, each deleted once; named is
// how many objects the space names.
func (sp *space) enumerateOwned() (fw fixedWork, named int64) {
	ranges := sp.ks.Index.Ranges()
	type item struct {
		store int
		num   int64
	}
	var items []item
	for i := range sp.stores {
		for _, n := range sp.owned[i].numbers(ranges) {
			items = append(items, item{i, n})
		}
	}
	return fixedWork{n: int64(len(items)), at: func(_ *worker, j int64) task {
		it := items[j]
		key := sp.key(it.num)
		return task{op: metrics.OpDelete, store: sp.stores[it.store], key: key, seed: keySeed(key), own: sp.owned[it.store], num: it.num}
	}}, sp.ks.Index.Count() * int64(len(sp.stores))
}

// sweepOwned follows a cleanup step whose deletes failed, in COSBench's
// key layout: the objects its streams name that the run's record still
// holds are deleted again; what cannot be is noted as left.
func (r *runState) sweepOwned(ctx context.Context, st workload.Stage, step *result.Step, failed int64) {
	deleted, left := 0, 0
	var why error
	for _, s := range st.Streams {
		if s.Objects.Index == nil || s.Objects.Existing {
			continue
		}
		sp, err := r.space(ctx, s, s.Objects, workload.Const(0))
		if err != nil {
			why, left = err, left+1
			continue
		}
		for i, o := range sp.owned {
			for _, n := range o.numbers(sp.ks.Index.Ranges()) {
				if err := deleteKey(ctx, sp.stores[i], o.key(n)); err != nil {
					why, left = fmt.Errorf("delete %s: %w", o.key(n), err), left+1
					continue
				}
				o.remove(n)
				deleted++
			}
		}
	}
	step.Notes = append(step.Notes, fmt.Sprintf("%d deletes failed; deleted again what this run wrote: %d objects", failed, deleted))
	if left > 0 {
		note := fmt.Sprintf("cleanup left %d objects of this run: %v", left, why)
		step.Notes = append(step.Notes, note)
		r.ledger.leftover(note)
	}
}

// deleteOwnedIn deletes the objects of bucket b that the run's record
// holds (dispose, before it checks the bucket is empty).
func (r *runState) deleteOwnedIn(ctx context.Context, b bucketRef) (int, error) {
	n := 0
	for _, o := range r.data.ownedIn(&b) {
		for _, num := range o.numbers(nil) {
			if err := deleteKey(ctx, o.store, o.key(num)); err != nil {
				return n, fmt.Errorf("delete %s: %w", o.key(num), err)
			}
			o.remove(num)
			n++
		}
	}
	return n, nil
}

// bareLeftovers notes, at the run's end, the objects of the run's record
// still in the store once it cleaned up, and the writes whose outcome it
// never learnt: objects it may have stored but cannot prove its own, so
// never deletes.
func (r *runState) bareLeftovers() {
	cleans := !r.cfg.NoCleanup && slices.ContainsFunc(r.cfg.Spec.Stages, func(st workload.Stage) bool { return st.Kind == workload.KindCleanup })
	var kept, unsure int
	var firstKept, firstUnsure string
	for _, o := range r.data.ownedIn(nil) {
		if ns := o.numbers(nil); len(ns) > 0 {
			if kept == 0 {
				firstKept = o.name(ns[0])
			}
			kept += len(ns)
		}
		if ns := o.unsureNumbers(); len(ns) > 0 {
			if unsure == 0 {
				firstUnsure = o.name(ns[0])
			}
			unsure += len(ns)
		}
	}
	if cleans && kept > 0 {
		r.ledger.leftover(fmt.Sprintf("%d objects this run wrote under COSBench's names are still in the store (first %s)", kept, firstKept))
	}
	if unsure > 0 {
		r.ledger.leftover(fmt.Sprintf("%d writes got no answer, so their objects may be stored (first %s); objbench does not delete them, having no proof they are its own", unsure, firstUnsure))
	}
}
