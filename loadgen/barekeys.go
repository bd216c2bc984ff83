package loadgen

import (
	"context"
	"errors"
	"io"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/workload"
)

// COSBench's key layout (Config.BareKeys, workload.BareKeysNote): keys are
// named as COSBench names them, without the run's namespace, so a listing
// cannot tell the run's objects from anyone's. The run keeps its own
// record instead: the numbers of each numbered key space it wrote, bucket
// by bucket. A write of a number not in the record is made only if the
// key is free (If-None-Match: *) and enters the record once it succeeds;
// a delete is sent only for a number in the record (a main stage's delete
// of another's object fails as workload.ClassForeign without a request);
// cleanup, its sweep and dispose delete only numbers in the record.

// ownNumbers is the record of one numbered key space in one bucket: the
// numbers whose objects this run wrote, and those whose write's outcome
// is unknown (a timeout: maybe stored, never deleted, always reported).
type ownNumbers struct {
	store          storage.Store
	bucket         string
	prefix, suffix string
	mu             sync.Mutex
	words, unsure  map[int64]uint64 // bit n%64 of word n/64
	// busy holds the numbers a write or delete is under way for, each
	// with a channel closed when it ends (made by the first worker to
	// wait for it; nil while none does): two workers that hit one key
	// take turns, or a write landing after a delete that forgot it would
	// leave an object outside the record.
	busy map[int64]chan struct{}
}

func newOwnNumbers(st storage.Store, bucket, prefix, suffix string) *ownNumbers {
	return &ownNumbers{store: st, bucket: bucket, prefix: prefix, suffix: suffix, words: map[int64]uint64{}, unsure: map[int64]uint64{},
		busy: map[int64]chan struct{}{}}
}

// acquire waits until no other write or delete of n is under way, then
// holds n until release.
func (o *ownNumbers) acquire(ctx context.Context, n int64) error {
	for {
		o.mu.Lock()
		ch, held := o.busy[n]
		if !held {
			o.busy[n] = nil // no channel until a second worker waits
			o.mu.Unlock()
			return nil
		}
		if ch == nil {
			ch = make(chan struct{})
			o.busy[n] = ch
		}
		o.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (o *ownNumbers) release(n int64) {
	o.mu.Lock()
	if ch := o.busy[n]; ch != nil {
		close(ch)
	}
	delete(o.busy, n)
	o.mu.Unlock()
}

func bitOf(n int64) (word int64, bit uint64) {
	w := n / 64
	if n%64 < 0 {
		w--
	}
	return w, 1 << uint64(n-w*64)
}

func (o *ownNumbers) has(n int64) bool {
	w, b := bitOf(n)
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.words[w]&b != 0
}

// add records a successful write of n.
func (o *ownNumbers) add(n int64) {
	w, b := bitOf(n)
	o.mu.Lock()
	o.words[w] |= b
	if o.unsure[w] &^= b; o.unsure[w] == 0 {
		delete(o.unsure, w)
	}
	o.mu.Unlock()
}

// remove forgets n once its object is deleted.
func (o *ownNumbers) remove(n int64) {
	w, b := bitOf(n)
	o.mu.Lock()
	if o.words[w] &^= b; o.words[w] == 0 {
		delete(o.words, w)
	}
	o.mu.Unlock()
}

// markUnsure notes a write of n whose outcome is unknown.
func (o *ownNumbers) markUnsure(n int64) {
	w, b := bitOf(n)
	o.mu.Lock()
	if o.words[w]&b == 0 {
		o.unsure[w] |= b
	}
	o.mu.Unlock()
}

func (o *ownNumbers) key(n int64) string {
	return o.prefix + strconv.FormatInt(n, 10) + o.suffix
}

// name is n's object as a message names it: bucket/key.
func (o *ownNumbers) name(n int64) string {
	if o.bucket == "" {
		return o.key(n)
	}
	return o.bucket + "/" + o.key(n)
}

// list is the numbers of set, in order.
func list(set map[int64]uint64) []int64 {
	var out []int64
	for w, bits := range set {
		for i := range int64(64) {
			if bits&(1<<uint64(i)) != 0 {
				out = append(out, w*64+i)
			}
		}
	}
	slices.Sort(out)
	return out
}

// numbers are the numbers recorded, in order; within, when not nil, keeps
// those in any of its ranges.
func (o *ownNumbers) numbers(within [][2]int64) []int64 {
	o.mu.Lock()
	all := list(o.words)
	o.mu.Unlock()
	if within == nil {
		return all
	}
	return slices.DeleteFunc(all, func(n int64) bool { return !inRanges(n, within) })
}

func (o *ownNumbers) unsureNumbers() []int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return list(o.unsure)
}

// ownAt is the record of the space's i-th bucket (nil: no record kept).
func (sp *space) ownAt(i int) *ownNumbers {
	if sp.owned == nil {
		return nil
	}
	return sp.owned[i]
}

// foreign is the error of a write or delete of an object this run did
// not write.
func foreign(op, key string) error {
	return &storage.OpError{Op: op, Key: key, Err: storage.ClassError(workload.ClassForeign)}
}

// holdOwn holds t's number for a write or delete in COSBench's key
// layout: one at a time for a key, so the run's record says what the
// store holds. ok=false: the run stopped while it waited (w.res says so).
func (w *worker) holdOwn(ctx context.Context, t task) (held, ok bool) {
	if t.own == nil || t.op != metrics.OpPut && t.op != metrics.OpDelete {
		return false, true
	}
	if err := t.own.acquire(ctx, t.num); err != nil {
		now := time.Now()
		w.res = metrics.Result{Op: t.op, Intended: now, Start: now, End: now, Err: err}
		return false, false
	}
	return true, true
}

// putOwn writes t's object in COSBench's key layout (t.num held): over an
// object of the run's own, or else only where the key is free.
func (w *worker) putOwn(ctx context.Context, t task, body io.Reader) (storage.ObjectInfo, error) {
	o := w.putOptions()
	if t.own.has(t.num) {
		return t.store.Put(ctx, t.key, body, t.size, o)
	}
	o.IfNoneMatch = "*"
	info, err := t.store.Put(ctx, t.key, body, t.size, o)
	var se *storage.StatusError
	switch {
	case err == nil:
		t.own.add(t.num)
	case errors.Is(err, storage.ErrPreconditionFailed):
		return info, foreign("put", t.key)
	case !errors.As(err, &se):
		t.own.markUnsure(t.num) // no answer: it may be stored
	}
	return info, err
}

// deleteOwn deletes t's object in COSBench's key layout (t.num held) if
// the run wrote it, and forgets it once deleted.
func (w *worker) deleteOwn(ctx context.Context, t task) error {
	if !t.own.has(t.num) {
		return foreign("delete", t.key)
	}
	err := w.del(ctx, t)
	if err == nil || storage.ErrorClass(err) == storage.ClassNotFound {
		t.own.remove(t.num)
	}
	return err
}
