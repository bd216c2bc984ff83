package loadgen

import (
	"encoding/binary"
	"strings"
)

// keySet is a list of object keys under one prefix, and their sizes when
// they vary, held compactly: half a million keys must fit in a small,
// fixed memory. Each key is one record in an arena of byte chunks (the
// key's part after the prefix, the size before it as a varint when sizes
// vary) and one 8-byte entry saying where the record is; a key is
// made into a string only when it is asked for. Removal is by swapping
// with the last entry (order is not kept); the records removed are
// reclaimed by copying the live ones into fresh chunks once they
// outweigh them. A keySet is not safe for concurrent use.
type keySet struct {
	prefix  string
	varied  bool // every record starts with its object's size
	entries []uint64
	chunks  [][]byte
	live    int64 // bytes of the live records
	dead    int64 // bytes of records removed, still in chunks
}

// chunkSize is the size of an arena chunk: records never span two, and
// one longer than a chunk gets a chunk of its own.
const chunkSize = 64 << 10

// An entry packs where its record is: the chunk (24 bits), the offset in
// it (16 bits), the record's length (23 bits) and whether the record holds
// the whole key (a key outside the prefix) rather than its suffix.
const (
	entryChunkBits = 24
	entryOffBits   = 16
	entryLenBits   = 23
	maxRecord      = 1<<entryLenBits - 1
)

func packEntry(chunk, off, n int, whole bool) uint64 {
	e := uint64(chunk)<<(entryOffBits+entryLenBits+1) | uint64(off)<<(entryLenBits+1) | uint64(n)<<1
	if whole {
		e |= 1
	}
	return e
}

func unpackEntry(e uint64) (chunk, off, n int, whole bool) {
	return int(e >> (entryOffBits + entryLenBits + 1)), int(e>>(entryLenBits+1)) & (1<<entryOffBits - 1),
		int(e>>1) & maxRecord, e&1 == 1
}

func (s *keySet) len() int { return len(s.entries) }

// add appends key, of size bytes. A key longer than 8 MiB (S3 allows
// 1,024 bytes) is a caller's bug.
func (s *keySet) add(key string, size int64) {
	whole := !strings.HasPrefix(key, s.prefix)
	rest := key
	if !whole {
		rest = key[len(s.prefix):]
	}
	n := len(rest)
	var sz [binary.MaxVarintLen64]byte
	var szn int
	if s.varied {
		szn = binary.PutUvarint(sz[:], uint64(size))
		n += szn
	}
	if n > maxRecord {
		panic("loadgen: key too long for a key set: " + key[:64])
	}
	c := s.room(n)
	off := len(s.chunks[c])
	s.chunks[c] = append(append(s.chunks[c], sz[:szn]...), rest...)
	s.entries = append(s.entries, packEntry(c, off, n, whole))
	s.live += int64(n)
}

// room returns a chunk with room for a record of n bytes at its end,
// starting a new one when the last is too full.
func (s *keySet) room(n int) int {
	last := len(s.chunks) - 1
	// An offset must fit its 16 bits: a chunk made for one long record
	// may have room past them.
	if last >= 0 && len(s.chunks[last])+n <= cap(s.chunks[last]) && len(s.chunks[last]) < 1<<entryOffBits {
		return last
	}
	if len(s.chunks) >= 1<<entryChunkBits {
		panic("loadgen: key set arena full")
	}
	// The first chunks are smaller (1, 4, 16 KiB): a pool of a few keys
	// stays small.
	size := min(chunkSize, 1024<<(2*min(len(s.chunks), 3)))
	s.chunks = append(s.chunks, make([]byte, 0, max(size, n)))
	return len(s.chunks) - 1
}

// record is entry i's bytes: the size varint (when varied), then the key
// (its suffix, unless whole).
func (s *keySet) record(i int) (rec []byte, whole bool) {
	c, off, n, whole := unpackEntry(s.entries[i])
	return s.chunks[c][off : off+n], whole
}

// rest is key i without the prefix (whole: the key itself) and its size,
// the bytes still the arena's: for look-ups that make no string.
func (s *keySet) rest(i int) (rest []byte, size int64, whole bool) {
	rec, whole := s.record(i)
	if s.varied {
		v, n := binary.Uvarint(rec)
		return rec[n:], int64(v), whole
	}
	return rec, 0, whole
}

// at is key i and its size (0 when sizes do not vary).
func (s *keySet) at(i int) (string, int64) {
	rest, size, whole := s.rest(i)
	if whole {
		return string(rest), size
	}
	return s.prefix + string(rest), size
}

// remove drops key i; the last key takes its place.
func (s *keySet) remove(i int) {
	_, _, n, _ := unpackEntry(s.entries[i])
	last := len(s.entries) - 1
	s.entries[i] = s.entries[last]
	s.entries = s.entries[:last]
	if last == 0 { // empty: keep the first chunk for what comes next
		s.chunks, s.live, s.dead = s.chunks[:1], 0, 0
		s.chunks[0] = s.chunks[0][:0]
		return
	}
	s.live -= int64(n)
	s.dead += int64(n)
	if s.dead > s.live && s.dead >= 4*chunkSize {
		s.compact()
	}
}

// compact copies the live records into fresh chunks, so the removed ones
// no longer hold memory.
func (s *keySet) compact() {
	old := s.chunks
	s.chunks = nil
	for i, e := range s.entries {
		c, off, n, whole := unpackEntry(e)
		nc := s.room(n)
		noff := len(s.chunks[nc])
		s.chunks[nc] = append(s.chunks[nc], old[c][off:off+n]...)
		s.entries[i] = packEntry(nc, noff, n, whole)
	}
	s.dead = 0
	if cap(s.entries) > 4*len(s.entries) { // give back most of an index that has shrunk
		s.entries = append(make([]uint64, 0, 2*len(s.entries)), s.entries...)
	}
}

// reset empties the set, keeping its prefix and whether sizes vary.
func (s *keySet) reset() {
	s.entries, s.chunks, s.live, s.dead = nil, nil, 0, 0
}

// bytes is about what the set holds in memory.
func (s *keySet) bytes() int64 {
	b := int64(cap(s.entries)) * 8
	for _, c := range s.chunks {
		b += int64(cap(c)) + 24
	}
	return b
}
