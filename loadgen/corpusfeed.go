package loadgen

import (
	"context"
	"errors"
	"iter"
	"sync"

	"github.com/objbench/objbench/corpus"
)

// corpusFeed hands out a corpus's items [lo, hi) in order, one at a time,
// to the workers preparing them: the corpus is never listed into memory
// (corpus.Each, pulled). Close it when the run ends.
type corpusFeed struct {
	mu   sync.Mutex
	pull func() (corpus.Item, bool)
	stop func()
	err  error // what ended the corpus's listing early
	done bool
}

var errFeedStop = errors.New("feed stopped")

func newCorpusFeed(ctx context.Context, c *corpus.Corpus, lo, hi int64) *corpusFeed {
	f := &corpusFeed{}
	f.pull, f.stop = iter.Pull(func(yield func(corpus.Item) bool) {
		i := int64(-1)
		err := c.Each(ctx, func(it corpus.Item) error {
			if i++; i < lo {
				return nil
			}
			if i >= hi || !yield(it) {
				return errFeedStop
			}
			return nil
		})
		if err != nil && !errors.Is(err, errFeedStop) {
			f.err = err // read under f.mu by next, which this runs inside
		}
	})
	return f
}

// next is the next item; ok=false when there is none, cause saying why.
func (f *corpusFeed) next() (it *corpus.Item, ok bool, cause string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.done {
		var item corpus.Item
		if item, ok = f.pull(); ok {
			return &item, true, ""
		}
		f.done = true
	}
	if f.err != nil {
		return nil, false, "the corpus could not be read on: " + f.err.Error()
	}
	return nil, false, "done"
}

// Close ends the corpus's listing if it is still going.
func (f *corpusFeed) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stop()
	return nil
}

// foreignItems adds the items outside [lo, hi), which the other workers of
// a split run prepare, to the space's pool for reads (keyPool.adopt).
func foreignItems(ctx context.Context, c *corpus.Corpus, space *space, lo, hi int64) error {
	if lo == 0 && hi == c.Len() {
		return nil
	}
	pool, i := space.pool, int64(-1)
	return c.Each(ctx, func(it corpus.Item) error {
		if i++; i < lo || i >= hi {
			pool.addForeign(space.prefix+it.Name, it.Size)
		}
		return nil
	})
}
