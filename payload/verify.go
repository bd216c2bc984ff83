package payload

import "bytes"

// Verifier is an io.Writer that compares what is written to it with the
// bytes a Reader produces for one object, so a reader of data this run
// wrote can check every byte without anything stored per object. A worker
// keeps one and resets it per read; it allocates nothing.
type Verifier struct {
	block   *Block
	off     int
	checked int64
	bad     int64 // offset in the object of the first wrong byte, or -1
}

// NewVerifier returns a Verifier over b; call Reset before each object.
func NewVerifier(b *Block) *Verifier { return &Verifier{block: b, bad: -1} }

// Reset prepares to check the bytes of the object with seed from offset on.
func (v *Verifier) Reset(seed uint64, offset int64) {
	v.off = v.block.start(seed, offset)
	v.checked, v.bad = 0, -1
}

// Write compares p with the expected bytes; it never fails, so the whole
// object is read (and timed) whatever it holds.
func (v *Verifier) Write(p []byte) (int, error) {
	n := len(p)
	data := v.block.data
	for len(p) > 0 {
		lo, hi := v.block.bounds(v.off)
		k := min(len(p), hi-v.off)
		if v.bad < 0 && !bytes.Equal(p[:k], data[v.off:v.off+k]) {
			v.bad = v.checked + int64(firstDiff(p[:k], data[v.off:v.off+k]))
		}
		v.checked += int64(k)
		v.off += k
		if v.off == hi {
			v.off = lo
		}
		p = p[k:]
	}
	return n, nil
}

func firstDiff(a, b []byte) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return len(a)
}

// Mismatch is the offset (from the Reset offset) of the first byte that
// differed from what was written, or -1 when all matched.
func (v *Verifier) Mismatch() int64 { return v.bad }

// Checked is how many bytes were compared since Reset.
func (v *Verifier) Checked() int64 { return v.checked }
