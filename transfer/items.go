package transfer

import (
	"context"

	"github.com/objbench/objbench/corpus"
)

// itemSource hands out a plan's items without holding them, in key order: a
// corpus, the objects of gen:NxSIZE, a download's spilled listing. A plan
// without one holds its Items.
type itemSource interface {
	stats() sizeStats
	each(ctx context.Context, fn func(Item) error) error
	// limit keeps the first n items (n > 0).
	limit(n int)
	// generated says whether the items are generated data.
	generated() bool
	close() error
}

// sizeStats are a plan's object count, total size, smallest and largest.
type sizeStats struct{ n, bytes, min, max int64 }

func (s *sizeStats) add(size int64) {
	if s.n == 0 || size < s.min {
		s.min = size
	}
	s.n, s.bytes, s.max = s.n+1, s.bytes+size, max(s.max, size)
}

// corpusSource is a corpus's items as objects under dir; it was limited
// when opened (corpus.Open's max) and is closed by whoever opened it.
type corpusSource struct {
	c   *corpus.Corpus
	dir string
}

func (s corpusSource) stats() sizeStats {
	st := s.c.Stats()
	return sizeStats{n: s.c.Len(), bytes: s.c.Bytes(), min: st.Min, max: st.Max}
}

func (s corpusSource) each(ctx context.Context, fn func(Item) error) error {
	return s.c.Each(ctx, func(it corpus.Item) error {
		return fn(Item{Key: s.dir + it.Name, Size: it.Size, Corpus: &it})
	})
}

func (corpusSource) limit(int)       {}
func (corpusSource) generated() bool { return false }
func (corpusSource) close() error    { return nil }
