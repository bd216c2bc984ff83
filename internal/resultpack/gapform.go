package resultpack

import (
	"errors"
	"math"
	"strings"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// A per-second histogram's packed form: a tag byte, then the payload.
// packedTag's (result versions 5 and 6, the gap form): the populated
// buckets of objbench's geometry in index order, each a varint u whose
// bit 0 says a count other than 1 follows (a varint, the count minus 2)
// and whose other bits are how many empty buckets lie between it and the
// previous populated one. splitTag's (version 7, the split form, which
// this build writes) is in split.go.
//
// Nothing is deflated per histogram: merging a 100-worker hour adds
// 720,000 of them, and inflating each cost more than the adding
// (docs/design/040-result-packing.md). A file compresses a stream's seconds as a
// whole instead (pack.go), whose header says the form of its
// histograms. In memory, a second's histogram strings hold a tag and the
// payload; DecodePacked and a merge read both forms, and Codec the V2
// text of older files too.
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
	if len(s.Counts) != histCounts || s.LowestTrackableValue != Lowest || s.SignificantFigures != Digits {
		ours := NewHistogram()
		ours.Merge(h)
		s = ours.Export()
	}
	var w SplitWriter
	return string(w.appendDense([]byte(splitTag), s.Counts))
}

// IsPacked says whether a histogram string is in a packed form.
func IsPacked(enc string) bool {
	return strings.HasPrefix(enc, packedTag) || strings.HasPrefix(enc, splitTag)
}

// parsePackedString reads a packed histogram string (either form) into
// dst (emptied first).
func parsePackedString(enc string, dst *sparseHist) error {
	if strings.HasPrefix(enc, splitTag) {
		return parseSplit(enc[len(splitTag):], dst)
	}
	if !strings.HasPrefix(enc, packedTag) {
		dst.idx, dst.cnt = dst.idx[:0], dst.cnt[:0]
		return errPacked
	}
	return parsePacked(enc[len(packedTag):], dst)
}

// DecodePacked is the histogram a packed string holds (either form).
func DecodePacked(enc string) (*hdr.Histogram, error) {
	var sp sparseHist
	if err := parsePackedString(enc, &sp); err != nil {
		return nil, err
	}
	dense := make([]int64, histCounts)
	var total uint64
	for k, i := range sp.idx {
		dense[i] = sp.cnt[k] // each bucket once, in index order
		if total += uint64(sp.cnt[k]); total > math.MaxInt64 {
			return nil, errOverflow
		}
	}
	return histFromDense(dense), nil
}

// Add adds a packed payload, in the split form or the gap form, to h
// and, unless nil, to also.
func (h *Paged) Add(p []byte, split bool, also *Paged) error {
	if split {
		return addSplitPaged(h, also, p)
	}
	return addPackedPaged2(h, also, p)
}

// AddText adds a histogram string (a packed form with its tag, or V2
// text) to h.
func (h *Paged) AddText(enc string, c *Codec) error {
	if IsPacked(enc) {
		return h.Add([]byte(enc[len(packedTag):]), enc[:len(splitTag)] == splitTag, nil)
	}
	if err := c.decode(enc, &c.tmp); err != nil {
		return histError(err)
	}
	return h.addSparse(&c.tmp)
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
	return hdr.Import(&hdr.Snapshot{LowestTrackableValue: Lowest, HighestTrackableValue: Highest,
		SignificantFigures: Digits, Counts: dense})
}

// addPackedPaged2 adds the gap-form payload p to h and, unless nil, to
// also (a merge sums a second's latencies into the merged second and
// into its worker's total at once), with one-byte buckets read inline.
// As in addSplitPaged, the payload's count is checked, not each bucket.
func addPackedPaged2(h, also *Paged, p []byte) error {
	at, end := -1, 0
	var sum uint64 // the payload's count
	var page, page2 *[pageBuckets]int64
	for i := 0; i < len(p); {
		var idx int
		var c int64
		// A bucket of a one-byte gap and count (nearly all) is read without
		// a branch on whether it has a count: that flag is a coin toss in
		// a second's latencies, and the guess the CPU got wrong took a
		// fifth of a merge (`go test -bench AddPacked ./internal/resultpack`).
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
			page, page2, end = pagesAt(h, also, idx)
		}
		if sum += uint64(c); sum > math.MaxInt64 { // c is at most that: no wrap
			return errOverflow
		}
		page[idx&(pageBuckets-1)] += c
		if page2 != nil {
			page2[idx&(pageBuckets-1)] += c
		}
		at = idx
	}
	if err := h.addTotal(sum); err != nil {
		return err
	}
	if also != nil {
		return also.addTotal(sum)
	}
	return nil
}
