package resultpack

import (
	"encoding/binary"
	"math"
	"slices"
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

// SplitWriter builds a split payload from buckets given in index order;
// one goroutine's (it keeps its buffers).
type SplitWriter struct {
	g, c, e []byte
	n, prev int
}

func (w *SplitWriter) reset() {
	w.g, w.c, w.e, w.n, w.prev = w.g[:0], w.c[:0], w.e[:0], 0, -1
}

// add puts bucket idx, of count c > 0, after those added before: a
// bucket at a time, as a sparse histogram gives them (addRun is the same
// for a run of counts; FuzzPackedHistogram checks both write one form).
// Through addRun, one bucket at a time took twice as long.
func (w *SplitWriter) add(idx int, c int64) {
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

// addRun puts the buckets of run that are not 0 (run[k] is bucket
// base+k) after those added before, into buffers grown once for the run:
// through appends, which may call the allocator, Go's compiler kept the
// loop's state on the stack, and packing a merge's seconds took a tenth
// of it.
func (w *SplitWriter) addRun(run []int64, base int) {
	// At most, each bucket: a gap byte, a quarter of a counts byte, and
	// escapes of its gap (below 2^15: 3 bytes) and its count.
	g := slices.Grow(w.g, len(run))
	cs := slices.Grow(w.c, len(run)/4+1)
	e := slices.Grow(w.e, len(run)*(3+binary.MaxVarintLen64))
	ng, nc, ne, n, prev := len(g), len(cs), len(e), w.n, w.prev
	g, cs, e = g[:cap(g)], cs[:cap(cs)], e[:cap(e)]
	for j, c := range run {
		if c == 0 {
			continue
		}
		gap := base + j - prev - 1
		prev = base + j
		if gap < 255 {
			g[ng] = byte(gap)
		} else {
			g[ng] = 255
			ne += binary.PutUvarint(e[ne:], uint64(gap-255))
		}
		ng++
		k := 2 * (n & 3)
		if k == 0 {
			cs[nc] = 0
			nc++
		}
		if c < 4 {
			cs[nc-1] |= byte(c-1) << k
		} else {
			cs[nc-1] |= 3 << k
			ne += binary.PutUvarint(e[ne:], uint64(c-4))
		}
		n++
	}
	w.g, w.c, w.e, w.n, w.prev = g[:ng], cs[:nc], e[:ne], n, prev
}

// appendTo appends the payload of the buckets added to b and starts
// afresh.
func (w *SplitWriter) appendTo(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(w.n))
	b = append(b, w.g...)
	b = append(b, w.c...)
	b = append(b, w.e...)
	w.reset()
	return b
}

// appendDense appends the split payload of dense counts to b.
func (w *SplitWriter) appendDense(b []byte, counts []int64) []byte {
	w.reset()
	for k := 0; k < len(counts); k += pageBuckets { // a page at a time: the buffers grow with what the counts hold
		w.addRun(counts[k:min(k+pageBuckets, len(counts))], k)
	}
	return w.appendTo(b)
}

// appendSparse appends the split payload of s to b.
func (w *SplitWriter) appendSparse(b []byte, s *sparseHist) []byte {
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
