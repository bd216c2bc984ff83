package result

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// The split form of a packed histogram (result version 7, tag splitTag):
// the populated buckets of objbench's geometry in index order, their
// gaps and counts in separate runs of fixed width,
//
//	uvarint n, how many buckets;
//	n bytes, each bucket's gap to the previous populated one (255: the
//	  gap is 255 or more; E holds it minus 255);
//	ceil(n/4) bytes, each bucket's count minus 1 in 2 bits, bucket k's
//	  at bit 2(k mod 4) of byte k/4 (3: the count is 4 or more; E holds
//	  it minus 4); bits past the last bucket are 0;
//	E, those escapes as uvarints in bucket order (a bucket's gap before
//	  its count), each in its shortest form.
//
// Every histogram has one split form. A second of 1,000 GET latencies
// takes 1.27 bytes a bucket, as the gap form did, and packs about as
// small (a worker file of bench/merge.sh: 3,764 KiB against 3,732). The
// point is the reading: a merge of 100 workers of an hour adds half a
// billion buckets, and where the gap form's varints made every bucket's
// place depend on the one before, here eight buckets' gaps and counts
// are two loads, checked for escapes at once and added without a branch
// (addSplitBlock, addSplitPaged; design notes).
const splitTag = "\x01"

// splitWriter builds a split payload from buckets given in index order;
// one goroutine's (it keeps its buffers).
type splitWriter struct {
	g, c, e []byte
	n, prev int
}

func (w *splitWriter) reset() {
	w.g, w.c, w.e, w.n, w.prev = w.g[:0], w.c[:0], w.e[:0], 0, -1
}

// add puts bucket idx, of count c > 0, after those added before.
func (w *splitWriter) add(idx int, c int64) {
	if gap := idx - w.prev - 1; gap < 255 {
		w.g = append(w.g, byte(gap))
	} else {
		w.g = append(w.g, 255)
		w.e = binary.AppendUvarint(w.e, uint64(gap-255))
	}
	w.prev = idx
	if w.n&3 == 0 {
		w.c = append(w.c, 0)
	}
	if c < 4 {
		w.c[len(w.c)-1] |= byte(c-1) << (2 * (w.n & 3))
	} else {
		w.c[len(w.c)-1] |= 3 << (2 * (w.n & 3))
		w.e = binary.AppendUvarint(w.e, uint64(c-4))
	}
	w.n++
}

// appendTo appends the payload of the buckets added to b and starts
// afresh.
func (w *splitWriter) appendTo(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(w.n))
	b = append(b, w.g...)
	b = append(b, w.c...)
	b = append(b, w.e...)
	w.reset()
	return b
}

// appendDense appends the split payload of dense counts to b.
func (w *splitWriter) appendDense(b []byte, counts []int64) []byte {
	w.reset()
	for i, c := range counts {
		if c > 0 {
			w.add(i, c)
		}
	}
	return w.appendTo(b)
}

// appendSparse appends the split payload of s to b.
func (w *splitWriter) appendSparse(b []byte, s *sparseHist) []byte {
	w.reset()
	for k, i := range s.idx {
		if s.cnt[k] > 0 {
			w.add(int(i), s.cnt[k])
		}
	}
	return w.appendTo(b)
}

// splitPayload is a split payload's three runs, checked for length.
type splitPayload[P payload] struct {
	g, c, e P
	ei      int // the next escape
}

func openSplit[P payload](p P) (splitPayload[P], bool) {
	v, k, ok := uvarint(p, 0)
	if !ok || v > histCounts {
		return splitPayload[P]{}, false
	}
	n, cl := int(v), (int(v)+3)/4
	if len(p)-k < n+cl {
		return splitPayload[P]{}, false
	}
	s := splitPayload[P]{g: p[k : k+n], c: p[k+n : k+n+cl], e: p[k+n+cl:]}
	if n&3 != 0 && s.c[cl-1]>>(2*(n&3)) != 0 {
		return splitPayload[P]{}, false
	}
	return s, true
}

// escape reads the next escape.
func (s *splitPayload[P]) escape() (uint64, bool) {
	v, next, ok := uvarint(s.e, s.ei)
	if !ok || next-s.ei > 1 && s.e[next-1] == 0 { // not the shortest form
		return 0, false
	}
	s.ei = next
	return v, true
}

// bucket is bucket j's step from the one before (its gap plus 1) and its
// count, its escapes read.
func (s *splitPayload[P]) bucket(j int) (step int, c int64, ok bool) {
	step, c = int(s.g[j])+1, int64(s.c[j>>2]>>(2*(j&3)))&3+1
	if step == 256 {
		v, ok := s.escape()
		if !ok || v >= histCounts {
			return 0, 0, false
		}
		step = int(v) + 256
	}
	if c == 4 {
		v, ok := s.escape()
		if !ok || v > math.MaxInt64-4 {
			return 0, 0, false
		}
		c = int64(v) + 4
	}
	return step, c, true
}

// done says whether every escape was read (a payload holds no others).
func (s *splitPayload[P]) done() bool { return s.ei == len(s.e) }

// parseSplit reads the split payload p into dst (emptied first).
func parseSplit[P payload](p P, dst *sparseHist) error {
	dst.idx, dst.cnt = dst.idx[:0], dst.cnt[:0]
	s, ok := openSplit(p)
	if !ok {
		return errPacked
	}
	at := -1
	for j := range len(s.g) {
		step, c, ok := s.bucket(j)
		if at += step; !ok || at >= histCounts {
			return errPacked
		}
		dst.idx, dst.cnt = append(dst.idx, int32(at)), append(dst.cnt, c)
	}
	if !s.done() {
		return errPacked
	}
	return nil
}

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
func addSplitPaged(h, also *pagedHist, p []byte) error {
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
			w := binary.LittleEndian.Uint64(g[j:])
			if esc := (^w - bytesLow) & w & bytesHigh; esc != 0 { // a gap escapes (255): up to it
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
				page = h.page(at >> pageShift)
				if also != nil {
					page2 = also.page(at >> pageShift)
				}
				end = (at>>pageShift + 1) << pageShift
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
// page to cross, and eight buckets whose counts escape are added at once,
// the escaped ones (to which they added 3) then one by one.
func addSplitBlock(h *pagedHist, s *splitPayload[[]byte]) error {
	g, cs, n := s.g, s.c, len(s.g)
	if n == 0 {
		return checkDone(s)
	}
	d := h.countBlock()
	const mask = blockLen - 1
	sum := uint64(n) + countsSum(cs) // the payload's count, but what escaped counts add beyond 4
	at := -1
	wide := min(n-7, 4*(len(cs)-3)) // below it, eight buckets' gaps and counts are there to read at once
	for j := 0; j < n; {
		// How many buckets to add one by one (the last few always are).
		lanes := 1
		if j < wide {
			w := binary.LittleEndian.Uint64(g[j:])
			if esc := (^w - bytesLow) & w & bytesHigh; esc != 0 { // a gap escapes (255): up to it
				lanes = bits.TrailingZeros64(esc)/8 + 1
			} else {
				cw := countsAt(cs, j)
				esc := cw & (cw >> 1) & pairsLow // counts of 4 and more
				// The counts, each field plus 1, 3 where it escapes (no
				// field carries into the next).
				cw1 := cw + pairsLow - esc
				last := at + 8 + gapsSum(w)
				if last >= histCounts {
					return errPacked
				}
				e := g[j : j+8 : j+8]
				a := at + int(e[0]) + 1
				d[a&mask] += int64(cw1 & 3)
				a += int(e[1]) + 1
				d[a&mask] += int64(cw1 >> 2 & 3)
				a += int(e[2]) + 1
				d[a&mask] += int64(cw1 >> 4 & 3)
				a += int(e[3]) + 1
				d[a&mask] += int64(cw1 >> 6 & 3)
				a += int(e[4]) + 1
				d[a&mask] += int64(cw1 >> 8 & 3)
				a += int(e[5]) + 1
				d[a&mask] += int64(cw1 >> 10 & 3)
				a += int(e[6]) + 1
				d[a&mask] += int64(cw1 >> 12 & 3)
				a += int(e[7]) + 1
				d[a&mask] += int64(cw1 >> 14)
				for ; esc != 0; esc &= esc - 1 {
					l := bits.TrailingZeros(esc) / 2 // the lane, whose place is at, the gaps up to it and l+1
					a := at + l + 1 + gapsSum(w&(^uint64(0)>>(56-8*l)))
					v, ok := s.escape() // the count minus 4; 3 were added
					if !ok || v > math.MaxInt64-4 {
						return errPacked
					}
					d[a&mask] += int64(v + 1)
					if sum += v; sum > math.MaxInt64 { // v is at most that: no wrap
						return errOverflow
					}
				}
				at, j = last, j+8
				continue
			}
		}
		for stop := j + lanes; j < stop; j++ {
			step, c := int(g[j])+1, int64(cs[j>>2]>>(2*(j&3)))&3+1
			if step == 256 || c == 4 {
				var ok bool
				if step, c, ok = s.bucket(j); !ok {
					return errPacked
				}
			}
			if at += step; at >= histCounts {
				return errPacked
			}
			d[at&mask] += c
			if c >= 4 { // escaped: sum has 4 of it
				if sum += uint64(c - 4); sum > math.MaxInt64 { // c is at most that: no wrap
					return errOverflow
				}
			}
		}
	}
	if err := checkDone(s); err != nil {
		return err
	}
	// The pages the buckets lie in, from the first's to the last's, are
	// h's (pack reads them).
	first := int(g[0])
	if first == 255 {
		v, _, _ := uvarint(s.e, 0) // read above: bucket 0's gap is E's first
		first = int(v) + 255
	}
	for pn := first >> pageShift; pn <= at>>pageShift; pn++ {
		h.page(pn)
	}
	return h.addTotal(sum)
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
