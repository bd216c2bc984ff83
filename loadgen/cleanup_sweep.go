package loadgen

import (
	"context"
	"fmt"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/retry"
	"github.com/objbench/objbench/workload"
)

// Cleanup and dispose do not give up on a store's passing trouble (one
// 503 SlowDown on a listing made the whole run fail and keep its
// objects): their listings and deletes are tried again while the error is
// transient, and a cleanup step whose deletes failed is followed by a
// sweep that lists the run's prefixes again and deletes what is left.
// What still remains after that is recorded: the run did not clean up.

// cleanupTries bounds the tries of one listing or delete (retry.Backoff's
// waits, 100 ms doubling: about 2.3 s in all).
const cleanupTries = 6

// retryTransient is retry.Do with cleanup's tries.
func retryTransient(ctx context.Context, fn func() error) error {
	return retry.Do(ctx, retry.Around(cleanupTries), fn)
}

// deleteKey deletes key, tried again while it fails transiently; a key
// already gone is deleted.
func deleteKey(ctx context.Context, st storage.Store, key string) error {
	err := retryTransient(ctx, func() error { return st.Delete(ctx, key) })
	if storage.ErrorClass(err) == storage.ClassNotFound {
		return nil
	}
	return err
}

// sweep follows a cleanup step whose deletes failed: it lists each
// stream's prefix in every store again and deletes what of this run is
// left; what cannot be deleted is noted on the step and as a leftover.
func (r *runState) sweep(ctx context.Context, st workload.Stage, step *result.Step) {
	failed := int64(0)
	for _, s := range step.Streams {
		for _, t := range s.Totals {
			failed += t.Ops - t.OK
		}
	}
	if failed == 0 {
		return
	}
	if r.cfg.BareKeys {
		r.sweepOwned(ctx, st, step, failed)
		return
	}
	var deleted, left int
	var why error
	for _, prefix := range r.cleanupPrefixes(st) {
		for _, s := range r.stores.every() {
			l, err := listUnder(ctx, []storage.Store{s}, prefix, r.cfg.Namespace, r.ledger.ownKey)
			if err != nil {
				why = fmt.Errorf("list %q: %w", prefix, err)
				left++
				continue
			}
			if l.refused > 0 { // noted by the cleanup before the sweep
				left += int(l.refused)
			}
			err = l.each(func(s storage.Store, k string) error {
				if err := deleteKey(ctx, s, k); err != nil {
					why = fmt.Errorf("delete %s: %w", k, err)
					left++
					return nil
				}
				deleted++
				return nil
			})
			if err != nil { // the listing could not be read back
				why = fmt.Errorf("list %q: %w", prefix, err)
				left++
			}
			_ = l.Close()
		}
	}
	step.Notes = append(step.Notes, fmt.Sprintf("%d deletes failed; swept the run's prefixes again: %d objects deleted", failed, deleted))
	if left > 0 {
		note := fmt.Sprintf("cleanup left %d objects (or listings) of this run: %v", left, why)
		step.Notes = append(step.Notes, note)
		r.ledger.leftover(note)
	}
}

// cleanupPrefixes are the prefixes a cleanup stage deletes under.
func (r *runState) cleanupPrefixes(st workload.Stage) []string {
	if len(st.Streams) == 0 {
		return []string{r.cfg.Namespace}
	}
	var out []string
	for _, s := range st.Streams {
		if !s.Objects.Existing {
			out = append(out, r.cfg.Namespace+s.Objects.Prefix)
		}
	}
	return out
}
