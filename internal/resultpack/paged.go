package resultpack

import (
	"math"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// pageBuckets is the size of a Paged's pages.
const (
	pageShift   = 10
	pageBuckets = 1 << pageShift
	histPages   = (histCounts + pageBuckets - 1) / pageBuckets
)

// Paged is a histogram being summed, its counts in pages of 1,024
// buckets made as buckets in them are first touched: a merged hour holds
// thousands of them, and a second's latencies fill a few pages, not the
// 23 (184 KiB) of the whole geometry. With a pool (a merge's seconds,
// a few at a time), the pages are those of one block of the whole
// geometry, so that addSplitBlock adds without minding pages.
//
// total is every count added. What adds to a Paged checks that total
// for overflow, not each bucket: no bucket exceeds it.
type Paged struct {
	pages [histPages]*[pageBuckets]int64
	block *countBlock // with a pool: where the pages lie
	total uint64
	pool  *Pool
}

// countBlock is the counts of a whole histogram, 32,768 long so that an
// index masked to 15 bits needs no bounds check.
type (
	countBlock [blockLen]int64
	Pool       struct{ free []*countBlock } // blocks of merged seconds already written, cleared
)

const blockLen = 1 << 15

func (p *Pool) get() *countBlock {
	if len(p.free) == 0 {
		return new(countBlock)
	}
	b := p.free[len(p.free)-1]
	p.free = p.free[:len(p.free)-1]
	return b
}

// put takes back a block that is all zeros.
func (p *Pool) put(b *countBlock) { p.free = append(p.free, b) }

// addTotal counts n more added to h: an error when h's total no longer
// fits an int64 (a bucket might not).
func (h *Paged) addTotal(n uint64) error {
	if n > math.MaxInt64 || h.total+n > math.MaxInt64 {
		return errOverflow
	}
	h.total += n
	return nil
}

// addSparse adds s.
func (h *Paged) addSparse(s *sparseHist) error {
	var sum uint64
	for k, i := range s.idx {
		c := s.cnt[k]
		if c < 0 {
			return errOverflow
		}
		if sum += uint64(c); sum > math.MaxInt64 {
			return errOverflow
		}
		h.page(int(i) >> pageShift)[i&(pageBuckets-1)] += c
	}
	return h.addTotal(sum)
}

func (h *Paged) page(n int) *[pageBuckets]int64 {
	if h.pages[n] == nil {
		if h.pool == nil {
			h.pages[n] = new([pageBuckets]int64)
		} else {
			h.pages[n] = (*[pageBuckets]int64)(h.countBlock()[n<<pageShift:])
		}
	}
	return h.pages[n]
}

// pagesAt is the page of h, and of also unless nil, that bucket idx lies
// in, and where the next page begins: what an adding loop keeps while its
// buckets stay in one page.
func pagesAt(h, also *Paged, idx int) (page, page2 *[pageBuckets]int64, end int) {
	page = h.page(idx >> pageShift)
	if also != nil {
		page2 = also.page(idx >> pageShift)
	}
	return page, page2, (idx>>pageShift + 1) << pageShift
}

// countBlock is h's block, taken from the pool at first.
func (h *Paged) countBlock() *countBlock {
	if h.block == nil {
		h.block = h.pool.get()
	}
	return h.block
}

// UsePool makes h take its pages from p (a merge's seconds, a few at a
// time): see Paged.
func (h *Paged) UsePool(p *Pool) { h.pool = p }

// Pack is the sum in the split form with its tag ("" when empty), built
// in buf; the pages are cleared as they are read, and the block goes
// back to the pool. Unless nil, into is added the sum (a merge's totals).
func (h *Paged) Pack(w *SplitWriter, buf []byte, into *Paged) (string, []byte, error) {
	w.reset()
	if into != nil {
		if err := into.addTotal(h.total); err != nil {
			return "", buf, err
		}
	}
	for n, page := range h.pages {
		if page == nil {
			continue
		}
		w.addRun(page[:], n<<pageShift)
		if into != nil {
			dst := into.page(n)
			for j, c := range page {
				dst[j] += c
			}
		}
		clear(page[:])
		h.pages[n] = nil
	}
	if h.block != nil { // all zeros again
		h.pool.put(h.block)
		h.block = nil
	}
	h.total = 0
	if w.n == 0 {
		return "", buf, nil
	}
	buf = w.appendTo(append(buf[:0], splitTag...))
	return string(buf), buf, nil
}

// Merge adds o (nil: nothing) to h.
func (h *Paged) Merge(o *Paged) error {
	if o == nil {
		return nil
	}
	if err := h.addTotal(o.total); err != nil {
		return err
	}
	for n, page := range o.pages {
		if page == nil {
			continue
		}
		if h.pages[n] == nil && o.block == nil {
			h.pages[n] = page
			continue
		}
		dst := h.page(n)
		for j, c := range page {
			dst[j] += c
		}
	}
	return nil
}

// Histogram is the sum as a histogram; nil for nil.
func (h *Paged) Histogram() *hdr.Histogram {
	if h == nil {
		return nil
	}
	dense := make([]int64, histCounts)
	for n, page := range h.pages {
		if page != nil {
			copy(dense[n<<pageShift:], page[:])
		}
	}
	return histFromDense(dense)
}

// Empty says whether nothing was added.
func (h *Paged) Empty() bool { return h.total == 0 }
