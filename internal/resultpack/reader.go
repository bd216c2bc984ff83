package resultpack

import "fmt"

// Last is the T of the last second ps holds.
func (ps *Packed) Last() int64 { return ps.last }

// Frames is how many frames ps holds.
func (ps *Packed) Frames() int { return len(ps.frames) }

// FrameFirst is the T of frame i's first second.
func (ps *Packed) FrameFirst(i int) int64 { return ps.frames[i].first }

// Reader reads a stream's records in T order, one at a time, holding one
// frame: a merge's cursor in one of its files.
type Reader struct {
	ps   Packed // its own: its next frame
	dec  *Decoder
	raw  []byte
	c    cursor
	left uint64 // op records left in the current second
	rec  Record
}

// Reader reads ps's records from frame `frame` on, its frames decoded by
// dec (one goroutine's, as the Reader is).
func (ps *Packed) Reader(frame int, dec *Decoder) *Reader {
	r := &Reader{ps: *ps, dec: dec}
	r.ps.next = frame
	return r
}

// Next reads the next record: false when there is none.
func (r *Reader) Next() (bool, error) {
	for r.left == 0 {
		if r.c.i >= len(r.c.b) {
			raw, err := r.ps.nextFrame(r.dec, r.raw)
			if err != nil || raw == nil {
				return false, err
			}
			r.raw, r.c = raw, cursor{b: raw}
		}
		r.rec.T, r.left = r.c.varint(), r.c.uvarint()
		if r.c.bad || r.rec.T > MaxT || r.rec.T < -MaxT || r.left > uint64(len(r.ps.ops)) {
			return false, fmt.Errorf("%w: second %d of %d ops", errPackedSeconds, r.rec.T, r.left)
		}
	}
	if err := r.ps.readOp(&r.c, &r.rec); err != nil {
		return false, err
	}
	r.left--
	return true, nil
}

// Record is the record Next read, valid until the next call.
func (r *Reader) Record() *Record { return &r.rec }
