package result

import (
	"encoding/binary"
	"errors"
	"math"
	"strings"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// The packed form of a per-second histogram (result version 5): the
// populated buckets of objbench's geometry in index order, each a varint
// u whose bit 0 says a count other than 1 follows (a varint, the count
// minus 2) and whose other bits are how many empty buckets lie between it
// and the previous populated one. A second of 1,000 ops takes about 900
// bytes, one per populated bucket.
//
// Nothing is deflated per histogram: merging a 100-worker hour adds
// 720,000 of them, and inflating each cost more than the adding
// (docs/design-notes.md). A version-5 file compresses a stream's seconds
// as a whole instead (packstream.go). In memory, OpSecond's histogram
// strings hold packedTag and the payload; DecodeHistogram and the merge
// read both this form and the V2 text of older files.
const packedTag = "\x00"

var (
	errPacked   = errors.New("corrupt packed histogram")
	errOverflow = errors.New("histogram counts overflow")
)

// PackHistogram is h (of objbench's geometry) in the packed form that
// per-second records hold; "" for an empty or nil histogram. The string
// is not text: a result file holds it inside a stream's packed seconds.
func PackHistogram(h *hdr.Histogram) string {
	if h == nil || h.TotalCount() == 0 {
		return ""
	}
	s := h.Export()
	if len(s.Counts) != histCounts || s.LowestTrackableValue != HistLowest || s.SignificantFigures != HistDigits {
		ours := NewHistogram()
		ours.Merge(h)
		s = ours.Export()
	}
	return packedTag + string(appendPackedDense(nil, s.Counts))
}

// isPacked says whether a histogram string is in the packed form.
func isPacked(enc string) bool { return strings.HasPrefix(enc, packedTag) }

// appendPackedDense appends the packed payload of dense counts (indexed
// by bucket) to b.
func appendPackedDense(b []byte, counts []int64) []byte {
	prev := -1
	for i, c := range counts {
		if c > 0 {
			b = appendPackedBucket(b, i-prev-1, c)
			prev = i
		}
	}
	return b
}

// appendPackedSparse appends the packed payload of s to b.
func appendPackedSparse(b []byte, s *sparseHist) []byte {
	prev := -1
	for k, i := range s.idx {
		if s.cnt[k] > 0 {
			b = appendPackedBucket(b, int(i)-prev-1, s.cnt[k])
			prev = int(i)
		}
	}
	return b
}

func appendPackedBucket(b []byte, gap int, c int64) []byte {
	if c == 1 {
		return binary.AppendUvarint(b, uint64(gap)<<1)
	}
	b = binary.AppendUvarint(b, uint64(gap)<<1|1)
	return binary.AppendUvarint(b, uint64(c-2))
}

// payload is a packed payload, held as a file's bytes or as a string.
type payload interface{ ~string | ~[]byte }

// nextPacked reads the bucket at p[i:] that follows bucket at: its index
// and count, and where the next begins; ok is false on a corrupt payload.
func nextPacked[P payload](p P, i, at int) (idx int, c int64, next int, ok bool) {
	u, i, ok := uvarint(p, i)
	if !ok || u>>1 >= histCounts {
		return 0, 0, 0, false
	}
	idx = at + int(u>>1) + 1
	if idx >= histCounts {
		return 0, 0, 0, false
	}
	c = 1
	if u&1 != 0 {
		v, n, ok := uvarint(p, i)
		if !ok || v > math.MaxInt64-2 {
			return 0, 0, 0, false
		}
		c, i = int64(v)+2, n
	}
	return idx, c, i, true
}

// uvarint reads the varint at p[i:] (encoding/binary's form) and where
// what follows begins.
func uvarint[P payload](p P, i int) (uint64, int, bool) {
	if i < len(p) && p[i] < 0x80 { // most buckets: one byte
		return uint64(p[i]), i + 1, true
	}
	var v uint64
	for s := 0; i < len(p) && s < 64; s += 7 {
		b := p[i]
		i++
		if b < 0x80 {
			if s == 63 && b > 1 {
				return 0, 0, false
			}
			return v | uint64(b)<<s, i, true
		}
		v |= uint64(b&0x7f) << s
	}
	return 0, 0, false
}

// addPackedDense adds the payload p to dense (histCounts long).
func addPackedDense[P payload](dense []int64, p P) error {
	dense = dense[:histCounts]
	at := -1
	for i := 0; i < len(p); {
		idx, c, next, ok := nextPacked(p, i, at)
		if !ok {
			return errPacked
		}
		v := dense[idx] + c
		if v < 0 {
			return errOverflow
		}
		dense[idx], at, i = v, idx, next
	}
	return nil
}

// parsePacked reads the payload p into dst (emptied first).
func parsePacked[P payload](p P, dst *sparseHist) error {
	dst.idx, dst.cnt = dst.idx[:0], dst.cnt[:0]
	at := -1
	for i := 0; i < len(p); {
		idx, c, next, ok := nextPacked(p, i, at)
		if !ok {
			return errPacked
		}
		dst.idx, dst.cnt = append(dst.idx, int32(idx)), append(dst.cnt, c)
		at, i = idx, next
	}
	return nil
}

// histFromDense is dense counts as a histogram of objbench's geometry.
func histFromDense(dense []int64) *hdr.Histogram {
	return hdr.Import(&hdr.Snapshot{LowestTrackableValue: HistLowest, HighestTrackableValue: HistHighest,
		SignificantFigures: HistDigits, Counts: dense})
}

// pageBuckets is the size of a pagedHist's pages.
const (
	pageShift   = 10
	pageBuckets = 1 << pageShift
	histPages   = (histCounts + pageBuckets - 1) / pageBuckets
)

// pagedHist is a histogram being summed, its counts in pages of 1,024
// buckets made as buckets in them are first touched: a merged hour holds
// thousands of them, and a second's latencies fill a few pages, not the
// 23 (184 KiB) of the whole geometry.
type pagedHist struct {
	pages [histPages]*[pageBuckets]int64
	pool  *pagePool // where pages come from and go back to (nil: made anew)
}

// pagePool keeps the pages of merged seconds already written, cleared,
// for the seconds after them.
type pagePool struct{ free []*[pageBuckets]int64 }

func (p *pagePool) get() *[pageBuckets]int64 {
	if p == nil || len(p.free) == 0 {
		return new([pageBuckets]int64)
	}
	pg := p.free[len(p.free)-1]
	p.free = p.free[:len(p.free)-1]
	return pg
}

func (p *pagePool) put(pg *[pageBuckets]int64) {
	if p != nil {
		*pg = [pageBuckets]int64{}
		p.free = append(p.free, pg)
	}
}

// addPackedPaged adds the payload p to h.
func addPackedPaged(h *pagedHist, p []byte) error { return addPackedPaged2(h, nil, p) }

// addPackedPaged2 adds the payload p to h and, unless nil, to also (a
// merge sums a second's latencies into the merged second and into its
// worker's total at once). This is a merge's inner loop (a 100-worker
// hour adds half a billion buckets): nextPacked's work, with one-byte
// buckets read inline.
func addPackedPaged2(h, also *pagedHist, p []byte) error {
	at, end := -1, 0
	var page, page2 *[pageBuckets]int64
	for i := 0; i < len(p); {
		var idx int
		var c int64
		// A bucket of a one-byte gap and count (nearly all) is read without
		// a branch on whether it has a count: that flag is a coin toss in
		// a second's latencies, and the guess the CPU got wrong took a
		// fifth of a merge (`go test -bench AddPacked ./result`).
		if i+1 < len(p) && (p[i]|p[i+1]&-(p[i]&1))&0x80 == 0 {
			f := int(p[i] & 1)
			idx, c = at+int(p[i]>>1)+1, 1+int64(f)*(int64(p[i+1])+1)
			i += 1 + f
		} else {
			var ok bool
			if idx, c, i, ok = nextPacked(p, i, at); !ok {
				return errPacked
			}
		}
		if idx >= end {
			if idx >= histCounts {
				return errPacked
			}
			page = h.page(idx >> pageShift)
			if also != nil {
				page2 = also.page(idx >> pageShift)
			}
			end = (idx>>pageShift + 1) << pageShift
		}
		v := page[idx&(pageBuckets-1)] + c
		if v < 0 {
			return errOverflow
		}
		page[idx&(pageBuckets-1)], at = v, idx
		if page2 != nil {
			if v = page2[idx&(pageBuckets-1)] + c; v < 0 {
				return errOverflow
			}
			page2[idx&(pageBuckets-1)] = v
		}
	}
	return nil
}

// addSparse adds s.
func (h *pagedHist) addSparse(s *sparseHist) error {
	for k, i := range s.idx {
		page := h.page(int(i) >> pageShift)
		v := page[i&(pageBuckets-1)] + s.cnt[k]
		if v < 0 {
			return errOverflow
		}
		page[i&(pageBuckets-1)] = v
	}
	return nil
}

func (h *pagedHist) page(n int) *[pageBuckets]int64 {
	if h.pages[n] == nil {
		h.pages[n] = h.pool.get()
	}
	return h.pages[n]
}

// pack is the sum in the packed form ("" when empty); the pages are
// released.
func (h *pagedHist) pack(buf []byte) (string, []byte) {
	buf = append(buf[:0], packedTag...)
	prev := -1
	for n, page := range h.pages {
		if page == nil {
			continue
		}
		for j, c := range page {
			if c > 0 {
				i := n<<pageShift + j
				buf = appendPackedBucket(buf, i-prev-1, c)
				prev = i
			}
		}
		h.pages[n] = nil
		h.pool.put(page)
	}
	if len(buf) == len(packedTag) {
		return "", buf
	}
	return string(buf), buf
}

// merge adds o (nil: nothing) to h.
func (h *pagedHist) merge(o *pagedHist) error {
	if o == nil {
		return nil
	}
	for n, page := range o.pages {
		if page == nil {
			continue
		}
		if h.pages[n] == nil {
			h.pages[n] = page
			continue
		}
		dst := h.pages[n]
		for j, c := range page {
			if v := dst[j] + c; v >= dst[j] {
				dst[j] = v
			} else {
				return errOverflow
			}
		}
	}
	return nil
}

// histogram is the sum as a histogram; nil for nil.
func (h *pagedHist) histogram() *hdr.Histogram {
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

// empty says whether nothing was added.
func (h *pagedHist) empty() bool {
	for _, p := range h.pages {
		if p != nil {
			return false
		}
	}
	return true
}
