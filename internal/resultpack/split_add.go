package resultpack

import (
	"cmp"
	"encoding/binary"
	"math"
	"math/bits"
)

// How a merge adds split payloads (split.go): eight buckets at a
// time where it can.

// Masks of a word of eight gap bytes and of eight 2-bit counts.
const (
	bytesLow  = 0x0101010101010101
	bytesHigh = 0x8080808080808080
	pairsLow  = 0x5555
)

// addSplitPaged adds the split payload p to h and, unless nil, to also.
// This is a merge's inner loop. Eight buckets in a row that land in the
// page the last one did and have no escape are added at once, without a
// branch; eight that cross into another page or have counts that escape
// are added one by one, as are the buckets up to a gap that escapes and
// the last few. No bucket is checked for overflow: none exceeds its
// histogram's total count, which is (addTotal). The payload's count is
// its buckets and their 2-bit fields summed at once (countsSum), then
// what each escaped count adds beyond 4, checked as it is added, so the
// sum never wraps.
func addSplitPaged(h, also *Paged, p []byte) error {
	s, ok := openSplit(p)
	if !ok {
		return errPacked
	}
	if also == nil && h.pool != nil {
		return addSplitBlock(h, &s)
	}
	g, cs, n := s.g, s.c, len(s.g)
	sum := uint64(n) + countsSum(cs) // the payload's count, but what escaped counts add beyond 4
	at, end := -1, 0
	var page, page2 *[pageBuckets]int64
	wide := min(n-7, 4*(len(cs)-3)) // below it, eight buckets' gaps and counts are there to read at once
	for j := 0; j < n; {
		// How many buckets to add one by one (the last few always are).
		lanes := 1
		if j < wide {
			// Reading the eight, and below addOneByOne's work, written out:
			// through a function that read them this loop took a tenth
			// longer, and with the loop below a method of its state, a
			// seventh (go test -bench AddPacked/split-paged, alternated).
			w := binary.LittleEndian.Uint64(g[j:])
			if esc := escapedGaps(w); esc != 0 { // a gap escapes (255): up to it
				lanes = bits.TrailingZeros64(esc)/8 + 1
			} else {
				cw := countsAt(cs, j)
				last := at + 8 + gapsSum(w)
				if last >= end || cw&(cw>>1)&pairsLow != 0 {
					lanes = 8
				} else {
					cw1 := cw + pairsLow // each count plus 1 (none is 3: no carry)
					e := g[j : j+8 : j+8]
					for pg, next := page, page2; pg != nil; pg, next = next, nil { // h's page, then also's
						a := at + int(e[0]) + 1
						pg[a&(pageBuckets-1)] += int64(cw1 & 3)
						a += int(e[1]) + 1
						pg[a&(pageBuckets-1)] += int64(cw1 >> 2 & 3)
						a += int(e[2]) + 1
						pg[a&(pageBuckets-1)] += int64(cw1 >> 4 & 3)
						a += int(e[3]) + 1
						pg[a&(pageBuckets-1)] += int64(cw1 >> 6 & 3)
						a += int(e[4]) + 1
						pg[a&(pageBuckets-1)] += int64(cw1 >> 8 & 3)
						a += int(e[5]) + 1
						pg[a&(pageBuckets-1)] += int64(cw1 >> 10 & 3)
						a += int(e[6]) + 1
						pg[a&(pageBuckets-1)] += int64(cw1 >> 12 & 3)
						a += int(e[7]) + 1
						pg[a&(pageBuckets-1)] += int64(cw1 >> 14)
					}
					at, j = last, j+8
					continue
				}
			}
		}
		for stop := j + lanes; j < stop; j++ {
			step, c := int(g[j])+1, int64(cs[j>>2]>>(2*(j&3)))&3+1
			if step == 256 || c == 4 {
				if step, c, ok = s.bucket(j); !ok {
					return errPacked
				}
			}
			if at += step; at >= end {
				if at >= histCounts {
					return errPacked
				}
				page, page2, end = pagesAt(h, also, at)
			}
			page[at&(pageBuckets-1)] += c
			if page2 != nil {
				page2[at&(pageBuckets-1)] += c
			}
			if c >= 4 { // escaped: sum has 4 of it
				if sum += uint64(c - 4); sum > math.MaxInt64 { // c is at most that: no wrap
					return errOverflow
				}
			}
		}
	}
	if !s.done() {
		return errPacked
	}
	if err := h.addTotal(sum); err != nil {
		return err
	}
	if also != nil {
		return also.addTotal(sum)
	}
	return nil
}

// addSplitBlock is addSplitPaged into h's block (a merge's second): no
// page to cross, so runs of eight buckets are added by addGroups until
// eight that have a gap or a count that escapes. Eight whose counts
// escape are added with 3 for those, which addEscapedCounts then makes
// up; buckets up to a gap that escapes are added one by one, as are the
// last few.
func addSplitBlock(h *Paged, s *splitPayload[[]byte]) error {
	g, cs, n := s.g, s.c, len(s.g)
	if n == 0 {
		return checkDone(s)
	}
	d := h.countBlock()
	sum := uint64(n) + countsSum(cs) // the payload's count, but what escaped counts add beyond 4
	at := -1
	wide := min(n-7, 4*(len(cs)-3)) // below it, eight buckets' gaps and counts are there to read at once
	for j := 0; j < n; {
		// How many buckets to add one by one (the last few always are).
		lanes := 1
		if j < wide {
			var esc uint
			var add uint64
			j, at, esc, s.ei, add = addGroups(d, g, cs, s.e, j, wide, at, s.ei)
			if sum += add; sum > math.MaxInt64 { // add is at most that: no wrap
				return errOverflow
			}
			if esc != 0 {
				w := binary.LittleEndian.Uint64(g[j:])
				add, err := addEscapedCounts(d, s, at, w, esc)
				if sum += add; err != nil || sum > math.MaxInt64 { // add is at most that: no wrap
					return cmp.Or(err, errOverflow)
				}
				at, j = at+8+gapsSum(w), j+8
				continue
			}
			if j < wide { // a gap escapes (up to it), or the eight end past the geometry (addOneByOne says so)
				lanes = 8
				if up := escapedGap(g, j); up > 0 {
					lanes = up
				}
			}
		}
		var add uint64
		var err error
		at, add, err = addOneByOne(d, s, j, min(j+lanes, n), at)
		if sum += add; err != nil || sum > math.MaxInt64 { // add is at most that: no wrap
			return cmp.Or(err, errOverflow)
		}
		j += lanes
	}
	if err := checkDone(s); err != nil {
		return err
	}
	markPages(h, s, at)
	return h.addTotal(sum)
}

// addEscapedCounts adds what the escaped counts of the eight buckets
// from at (gaps w; esc their lanes' low bits) add beyond the 3 added
// with the others, and returns how much beyond 4 that is.
func addEscapedCounts(d *countBlock, s *splitPayload[[]byte], at int, w uint64, esc uint) (uint64, error) {
	var sum uint64
	for ; esc != 0; esc &= esc - 1 {
		a := lanePlace(at, w, bits.TrailingZeros(esc)/2)
		v, ok := s.escape() // the count minus 4
		if !ok || v > math.MaxInt64-4 {
			return 0, errPacked
		}
		d[a&(blockLen-1)] += int64(v + 1)
		if sum += v; sum > math.MaxInt64 { // v is at most that: no wrap
			return 0, errOverflow
		}
	}
	return sum, nil
}

// addOneByOne adds buckets j..stop-1 after bucket at, and returns the
// last's index and how much beyond 4 the escaped counts among them add.
func addOneByOne(d *countBlock, s *splitPayload[[]byte], j, stop, at int) (int, uint64, error) {
	var sum uint64
	for ; j < stop; j++ {
		step, c := int(s.g[j])+1, int64(s.c[j>>2]>>(2*(j&3)))&3+1
		if step == 256 || c == 4 {
			var ok bool
			if step, c, ok = s.bucket(j); !ok {
				return 0, 0, errPacked
			}
		}
		if at += step; at >= histCounts {
			return 0, 0, errPacked
		}
		d[at&(blockLen-1)] += c
		if c >= 4 { // escaped: sum has 4 of it
			if sum += uint64(c - 4); sum > math.MaxInt64 { // c is at most that: no wrap
				return 0, 0, errOverflow
			}
		}
	}
	return at, sum, nil
}

// markPages makes the pages the buckets of s lie in, from the first's to
// the last's (at), h's: pack reads them.
func markPages(h *Paged, s *splitPayload[[]byte], at int) {
	first := int(s.g[0])
	if first == 255 {
		v, _, _ := uvarint(s.e, 0) // read before: bucket 0's gap is E's first
		first = int(v) + 255
	}
	for pn := first >> pageShift; pn <= at>>pageShift; pn++ {
		h.page(pn)
	}
}

func checkDone(s *splitPayload[[]byte]) error {
	if !s.done() {
		return errPacked
	}
	return nil
}

// countsSum is the sum of a counts run's 2-bit fields (the bits past
// the last bucket are 0).
func countsSum(cs []byte) uint64 {
	var sum int
	for ; len(cs) >= 8; cs = cs[8:] {
		x := binary.LittleEndian.Uint64(cs)
		sum += bits.OnesCount64(x) + bits.OnesCount64(x&0xaaaaaaaaaaaaaaaa) // a field's bits count 1 and 2
	}
	for _, b := range cs {
		sum += bits.OnesCount8(b) + bits.OnesCount8(b&0xaa)
	}
	return uint64(sum)
}

// escapedGap is how many of the eight buckets from j to add one by one,
// up to and with the first whose gap escapes (255); 0 when none does.
func escapedGap(g []byte, j int) int {
	if esc := escapedGaps(binary.LittleEndian.Uint64(g[j:])); esc != 0 {
		return bits.TrailingZeros64(esc)/8 + 1
	}
	return 0
}

// escapedGaps has the high bit of each byte of w that is 255 (an escaped
// gap) set, and maybe of bytes after it; 0 when none is.
func escapedGaps(w uint64) uint64 { return (^w - bytesLow) & w & bytesHigh }

// lanePlace is the place of bucket l of the eight after bucket at whose
// gaps are w: at, the gaps up to it and l+1.
func lanePlace(at int, w uint64, l int) int { return at + l + 1 + gapsSum(w&(^uint64(0)>>(56-8*l))) }

// countsAt is the eight 2-bit counts from bucket j on, read as 4 bytes
// (which the caller sees are there).
func countsAt(c []byte, j int) uint {
	return uint(binary.LittleEndian.Uint32(c[j>>2:])) >> (j & 3 * 2) & 0xffff
}

// gapsSum is the sum of a word's eight gap bytes (in four 16-bit lanes:
// it may exceed 255).
func gapsSum(w uint64) int {
	x := w&0x00ff00ff00ff00ff + w>>8&0x00ff00ff00ff00ff
	return int(x * 0x0001000100010001 >> 48)
}
