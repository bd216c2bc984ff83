package synth

import "slices"

// keyStat is what the profile keeps per key.
type keyStat struct {
	reads    uint32 // reads while the trace had not written the key
	rawReads uint32 // reads after a write of it in the trace
	writes   uint32 // PUT, MULTIPART
	deletes  uint32
	size     int64 // the largest size seen
	// heavy keys are kept, with exact counts, when the sample shrinks
	// past them: the few hottest keys carry most requests, and a hash
	// sample would catch only some of them.
	heavy bool
}

func (s *keyStat) requests() int64 {
	return int64(s.reads) + int64(s.rawReads) + int64(s.writes) + int64(s.deletes)
}

// keyTable counts requests per key in bounded memory by distinct
// sampling: every key is tracked while there are at most max of them;
// beyond, only keys whose hash has its top level bits zero are (a sample
// of 1 in 2^level keys, halved each time the table fills), so per-key
// counts stay exact for the keys kept, and totals over keys are the
// sample's times 2^level. The max/4 keys with the most requests when the
// sample shrinks are kept whatever their hash and count for themselves
// alone (heavy): a stratified sample whose head is exact.
type keyTable struct {
	m     map[uint64]*keyStat
	level uint
	max   int
}

func newKeyTable(max int) *keyTable {
	return &keyTable{m: map[uint64]*keyStat{}, max: max}
}

// sampled reports whether key hash h is in the sample.
func (t *keyTable) sampled(h uint64) bool { return t.level == 0 || h>>(64-t.level) == 0 }

// get returns the key's counters, or nil when the key is not sampled.
func (t *keyTable) get(h uint64) *keyStat {
	if !t.sampled(h) {
		if s := t.m[h]; s != nil && s.heavy {
			return s
		}
		return nil
	}
	s := t.m[h]
	if s == nil {
		s = &keyStat{}
		t.m[h] = s
		if len(t.m) > t.max {
			t.halve()
			if !t.sampled(h) {
				return nil
			}
		}
	}
	return s
}

// halve keeps half the sample (the keys whose next hash bit is zero too)
// and the heaviest keys.
func (t *keyTable) halve() {
	for len(t.m) > t.max && t.level < 63 {
		t.level++
		counts := make([]int64, 0, len(t.m))
		for _, s := range t.m {
			counts = append(counts, s.requests())
		}
		slices.Sort(counts)
		// Heavy: more requests than the (max/4+1)-th most requested key,
		// so no key left out has as many as a heavy one (with every
		// count equal, none is heavy).
		above := counts[max(len(counts)-1-t.max/4, 0)]
		for h, s := range t.m {
			s.heavy = s.requests() > above
			if !s.heavy && !t.sampled(h) {
				delete(t.m, h)
			}
		}
	}
}

// mult returns how many of the trace's keys a kept key stands for, by
// stratum: keys with at least as many requests as the least heavy key
// stand for themselves; below that threshold the hash sample stands for
// all keys, each of its keys for 2^level (a heavy key that fell below it
// and is not in the sample stands for none, or it would be counted
// twice).
func (t *keyTable) mult() func(h uint64, s *keyStat) int64 {
	threshold := int64(-1)
	for _, s := range t.m {
		if s.heavy && (threshold < 0 || s.requests() < threshold) {
			threshold = s.requests()
		}
	}
	return func(h uint64, s *keyStat) int64 {
		switch {
		case threshold >= 0 && s.requests() >= threshold:
			return 1
		case t.sampled(h):
			return int64(1) << t.level
		}
		return 0
	}
}

// scale is how many keys each sampled key stands for.
func (t *keyTable) scale() int64 { return int64(1) << t.level }

// hashKey is FNV-1a over bucket, a zero byte and key, finished with a
// mixer so that its top bits (which choose the sample) are well spread.
func hashKey(bucket, key string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(bucket); i++ {
		h = (h ^ uint64(bucket[i])) * 1099511628211
	}
	h *= 1099511628211 // the zero byte between bucket and key
	for i := 0; i < len(key); i++ {
		h = (h ^ uint64(key[i])) * 1099511628211
	}
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	return h ^ h>>31
}
