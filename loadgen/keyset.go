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
// it (16 bits), the record's length (22 bits), whether the key's bytes
// are hex digits packed two to a byte (a git blob id: 40 characters in
// 20 bytes), and whether the record holds the whole key (one outside the
// prefix) rather than its suffix.
const (
	entryChunkBits = 24
	entryOffBits   = 16
	entryLenBits   = 22
	maxRecord      = 1<<entryLenBits - 1
	flagWhole      = 1
	flagHex        = 2
)

func packEntry(chunk, off, n int, flags uint64) uint64 {
	return uint64(chunk)<<(entryOffBits+entryLenBits+2) | uint64(off)<<(entryLenBits+2) | uint64(n)<<2 | flags
}

func unpackEntry(e uint64) (chunk, off, n int, flags uint64) {
	return int(e >> (entryOffBits + entryLenBits + 2)), int(e>>(entryLenBits+2)) & (1<<entryOffBits - 1),
		int(e>>2) & maxRecord, e & 3
}

func (s *keySet) len() int { return len(s.entries) }

// add appends key, of size bytes. A key longer than 4 MiB (S3 allows
// 1,024 bytes) is a caller's bug.
func (s *keySet) add(key string, size int64) {
	var flags uint64
	rest := key
	if strings.HasPrefix(key, s.prefix) {
		rest = key[len(s.prefix):]
	} else {
		flags |= flagWhole
	}
	n := len(rest)
	if isHex(rest) {
		flags |= flagHex
		n /= 2
	}
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
	b := append(s.chunks[c], sz[:szn]...)
	if flags&flagHex != 0 {
		for i := 0; i < len(rest); i += 2 {
			b = append(b, unhex(rest[i])<<4|unhex(rest[i+1]))
		}
	} else {
		b = append(b, rest...)
	}
	s.chunks[c] = b
	s.entries = append(s.entries, packEntry(c, off, n, flags))
	s.live += int64(n)
}

// isHex: k is lowercase hex digits, an even number of them.
func isHex(k string) bool {
	if len(k) == 0 || len(k)%2 != 0 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func unhex(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c - 'a' + 10
}

const hexDigits = "0123456789abcdef"

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

// appendRest appends key i without the prefix (the whole key when it is
// outside it) to b and returns it with the key's size (0 when sizes do
// not vary) and whether the key was whole.
func (s *keySet) appendRest(b []byte, i int) ([]byte, int64, bool) {
	c, off, n, flags := unpackEntry(s.entries[i])
	rec := s.chunks[c][off : off+n]
	var size int64
	if s.varied {
		v, n := binary.Uvarint(rec)
		rec, size = rec[n:], int64(v)
	}
	if flags&flagHex == 0 {
		return append(b, rec...), size, flags&flagWhole != 0
	}
	for _, x := range rec {
		b = append(b, hexDigits[x>>4], hexDigits[x&15])
	}
	return b, size, flags&flagWhole != 0
}

// at is key i and its size (0 when sizes do not vary): one allocation,
// the key's.
func (s *keySet) at(i int) (string, int64) {
	var buf [256]byte
	rest, size, whole := s.appendRest(buf[:0], i)
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
		clear(s.chunks[1:]) // the others go (the array would hold them)
		s.chunks, s.live, s.dead = s.chunks[:1], 0, 0
		s.chunks[0] = s.chunks[0][:0]
		if cap(s.entries) > 1024 {
			s.entries = nil
		}
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
		c, off, n, flags := unpackEntry(e)
		nc := s.room(n)
		noff := len(s.chunks[nc])
		s.chunks[nc] = append(s.chunks[nc], old[c][off:off+n]...)
		s.entries[i] = packEntry(nc, noff, n, flags)
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
