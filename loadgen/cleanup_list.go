package loadgen

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/objbench/objbench/internal/spill"
	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/retry"
)

// Cleanup deletes what a listing of the run's prefix finds, and the
// listing is checked, not trusted (storage.ListUnder): one key outside
// the prefix, and nothing it listed is deleted. So every listing is
// complete and checked before the first delete, and what it found waits
// meanwhile on disk (internal/spill, as transfer.Clean keeps the keys it
// will delete), not in memory: the deletes read it back a key at a time.
// Half a million objects cost the spill's few MiB of buffers, not a
// string each.

// listing is the checked listing of one prefix in several stores.
type listing struct {
	stores []storage.Store
	keys   []*spill.Sorter // the keys listed in stores[i], in key order once read
	feed   *listFeed       // the deletes' reading back, once work made it
	// refused counts the keys listed that cleanup cannot prove are the
	// run's (CleanableKey), which it never deletes; why is the first's.
	refused int64
	why     error
}

// listUnder lists prefix in every store, keeping the keys that are
// provably of the run under namespace (CleanableKey) and that keep
// accepts (nil: all); a listing that fails transiently is listed again
// from the start. An error, a listing fault among them, leaves no listing
// at all.
func listUnder(ctx context.Context, stores []storage.Store, prefix, namespace string, keep func(string) bool) (*listing, error) {
	l := &listing{stores: stores}
	for _, st := range stores {
		var keys *spill.Sorter
		var refused int64
		var why error
		err := retry.Do(ctx, retry.Policy{Retries: cleanupTries - 1, Retryable: listRetryable}, func() error {
			if keys != nil {
				_ = keys.Close() // what a failed try listed
			}
			keys, refused, why = spill.New("", 0), 0, nil
			return storage.ListUnder(ctx, st, prefix, func(o storage.ObjectInfo) error {
				if err := CleanableKey(namespace, o.Key); err != nil {
					if refused++; why == nil {
						why = err
					}
					return nil
				}
				if keep != nil && !keep(o.Key) {
					return nil
				}
				return keys.Add(spill.Record{Key: o.Key})
			})
		})
		l.keys = append(l.keys, keys)
		if l.refused += refused; l.why == nil {
			l.why = why
		}
		if err != nil {
			_ = l.Close()
			return nil, err
		}
	}
	return l, nil
}

// listRetryable says whether a listing that failed is collected again
// from the start: it failed in passing (a transient error), its body did
// not parse (cut or corrupted on the way), or it named keys outside the
// prefix, which a listing corrupted on the way names once and a store
// that ignores prefixes names every time (after the tries, nothing of it
// is deleted). An endless listing is not listed again.
func listRetryable(err error) bool {
	var stuck *storage.ListingStuckError
	var syntax *xml.SyntaxError
	switch {
	case errors.As(err, &stuck):
		return false
	case storage.Transient(err), errors.Is(err, storage.ErrListingFault), errors.As(err, &syntax), errors.Is(err, io.ErrUnexpectedEOF):
		return true
	}
	return false
}

// refusal says what of the listing cleanup will not delete, or "".
func (l *listing) refusal() string {
	if l.refused == 0 {
		return ""
	}
	return fmt.Sprintf("cleanup left %d listed keys it cannot prove are this run's (a store fault: objbench never writes such keys): %v",
		l.refused, l.why)
}

// len is how many keys were listed.
func (l *listing) len() int64 {
	n := int64(0)
	for _, k := range l.keys {
		n += k.Len()
	}
	return n
}

// Close removes the listing's files.
func (l *listing) Close() error {
	var errs []error
	if l.feed != nil {
		errs = append(errs, l.feed.Close())
	}
	for _, k := range l.keys {
		errs = append(errs, k.Close())
	}
	return errors.Join(errs...)
}

// each calls fn with every key listed and its store, store by store, and
// stops at fn's first error.
func (l *listing) each(fn func(st storage.Store, key string) error) error {
	for i, keys := range l.keys {
		if err := keys.Each(func(r spill.Record) error { return fn(l.stores[i], r.Key) }); err != nil {
			return err
		}
	}
	return nil
}

// work is the fixed work of deleting every key listed: one DELETE each,
// or, with batch > 0, DeleteObjects requests of up to batch keys of one
// store where the store deletes in batches. The tasks are made as the
// workers ask for them (pull), never held.
func (l *listing) work(batch int) fixedWork {
	f := &listFeed{l: l, batch: batch}
	l.feed = f
	n := int64(0)
	for i, keys := range l.keys {
		c := keys.Len()
		if f.batches(i) {
			c = (c + int64(batch) - 1) / int64(batch)
		}
		n += c
	}
	return fixedWork{n: n, pull: f.next}
}

// listFeed hands out a listing's deletes, a store's keys at a time.
type listFeed struct {
	mu    sync.Mutex
	l     *listing
	batch int
	i     int           // the store being deleted from
	m     *spill.Merger // its keys, read back
	err   error         // what stopped the reading back
}

// batches reports whether store i's keys go in DeleteObjects requests.
func (f *listFeed) batches(i int) bool {
	_, ok := f.l.stores[i].(storage.BatchDeleter)
	return ok && f.batch > 0
}

func (f *listFeed) next() (task, bool, string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for f.i < len(f.l.keys) {
		if f.m == nil {
			m, err := f.l.keys[f.i].Open()
			if err != nil {
				return f.fail(err)
			}
			f.m = m
		}
		r, ok := f.m.Next()
		if !ok {
			err := errors.Join(f.m.Err(), f.m.Close())
			f.m = nil
			if err != nil {
				return f.fail(err)
			}
			f.i++
			continue
		}
		st := f.l.stores[f.i]
		if !f.batches(f.i) {
			return task{op: metrics.OpDelete, store: st, key: r.Key}, true, ""
		}
		t := task{op: metrics.OpDeleteBatch, store: st, key: r.Key, batch: []string{r.Key}}
		for len(t.batch) < f.batch {
			if r, ok = f.m.Next(); !ok {
				break // the next call moves on to the next store
			}
			t.batch = append(t.batch, r.Key)
		}
		return t, true, ""
	}
	return task{}, false, "done"
}

func (f *listFeed) fail(err error) (task, bool, string) {
	f.err = fmt.Errorf("its listing could not be read back: %w", err)
	f.i = len(f.l.keys) // no more
	return task{}, false, f.err.Error()
}

// readErr is what stopped the deletes reading the listing back, if
// anything did.
func (l *listing) readErr() error {
	if l.feed == nil {
		return nil
	}
	l.feed.mu.Lock()
	defer l.feed.mu.Unlock()
	return l.feed.err
}

// Close ends reading the listing back.
func (f *listFeed) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		return nil
	}
	err := f.m.Close()
	f.m = nil
	return err
}
