package resultpack

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// Packed is a stream's packed seconds (pack.go), read frame by frame;
// what it is given is untrusted: a corrupt or hostile blob is an error,
// and what it allocates is bounded by frameMax and the blob's size.
type Packed struct {
	ops, classes []string
	last         int64 // the last second's T
	frames       []frameRef
	next         int // the frame nextFrame decodes
	// lazy, when set, is where the frames' bytes are read from as they
	// are needed (their data is nil): a merge's files (lazy.go).
	lazy *Lazy
	// split: the histograms are in the split form (version 3 packing),
	// else in the gap form.
	split bool
}

// frameRef is one frame: the T of its first second, its raw length and
// its bytes as its codec left them.
type frameRef struct {
	first     int64
	rawLen    int
	data      []byte
	codec     byte
	off, size int // where data lies in the blob
}

// Open reads the header and frame index of a stream's packed seconds.
func Open(blob []byte) (*Packed, error) {
	if len(blob) == 0 || blob[0] < 1 || blob[0] > packVersion {
		return nil, fmt.Errorf("%w: unknown version", errPackedSeconds)
	}
	v1 := blob[0] == 1
	c := cursor{b: blob, i: 1}
	ps := &Packed{ops: c.names(), classes: c.names(), last: c.varint(), split: blob[0] >= 3}
	if c.bad {
		return nil, fmt.Errorf("%w: header", errPackedSeconds)
	}
	for c.i < len(c.b) {
		first, rawLen := c.varint(), c.uvarint()
		codec := byte(codecZstd)
		if !v1 {
			codec = c.byte()
		}
		size := c.uvarint()
		if v1 && size == 0 {
			codec, size = codecStored, rawLen
		}
		if c.bad || rawLen == 0 || rawLen > frameMax || codec > codecHuff0 || size > uint64(len(c.b)-c.i) ||
			codec == codecStored && size != rawLen || codec != codecStored && rawLen > maxRatio*size ||
			len(ps.frames) > 0 && first < ps.frames[len(ps.frames)-1].first {
			return nil, fmt.Errorf("%w: frame header", errPackedSeconds)
		}
		ps.frames = append(ps.frames, frameRef{first: first, rawLen: int(rawLen), data: c.b[c.i : c.i+int(size)], codec: codec,
			off: c.i, size: int(size)})
		c.i += int(size)
	}
	return ps, nil
}

// nextFrame decodes the next frame into buf (reused); nil at the end.
func (ps *Packed) nextFrame(dec *Decoder, buf []byte) ([]byte, error) {
	if ps.next >= len(ps.frames) {
		return nil, nil
	}
	f := ps.frames[ps.next]
	ps.next++
	if ps.lazy != nil {
		var err error
		if f.data, err = ps.lazy.fetch(f.off, f.size, dec); err != nil {
			return nil, err
		}
	}
	return dec.decode(f, buf)
}

// Record is one op's record of one second as a frame holds it. Packed
// are views into the frame; Errors and Ticks are the reader's, reused by
// the next record; the histogram strings are empty.
type Record struct {
	T int64
	OpSecond
	Packed Hists
	errs   map[string]int64
	ticks  Ticks
}

// Hists are a record's latency, TTFB and response histograms as
// its frame holds them: packed payloads (nil: none), all in the split
// form or all in the gap form.
type Hists struct {
	B     [3][]byte
	Split bool
}

// eachRecord calls fn with every op record of a frame's raw bytes, and
// second (when not nil) as each second begins.
func (ps *Packed) eachRecord(raw []byte, rec *Record, second func(t int64), fn func(*Record) error) error {
	c := cursor{b: raw}
	for c.i < len(c.b) && !c.bad {
		rec.T = c.varint()
		n := c.uvarint()
		if rec.T > MaxT || rec.T < -MaxT || n > uint64(len(ps.ops)) { // each op once a second
			return fmt.Errorf("%w: second %d of %d ops", errPackedSeconds, rec.T, n)
		}
		if second != nil && !c.bad {
			second(rec.T)
		}
		for ; n > 0 && !c.bad; n-- {
			if err := ps.readOp(&c, rec); err != nil {
				return err
			}
			if err := fn(rec); err != nil {
				return err
			}
		}
	}
	if c.bad {
		return fmt.Errorf("%w: record", errPackedSeconds)
	}
	return nil
}

func (ps *Packed) readOp(c *cursor, rec *Record) error {
	op, flags := c.uvarint(), c.uvarint()
	if c.bad || op >= uint64(len(ps.ops)) || flags&^packFlagAll != 0 {
		return fmt.Errorf("%w: op record", errPackedSeconds)
	}
	rec.OpSecond = OpSecond{Op: ps.ops[op], Ops: c.varint(), Bytes: c.varint()}
	if flags&packFlagErrors != 0 {
		if rec.errs == nil {
			rec.errs = map[string]int64{}
		}
		clear(rec.errs)
		for n := c.uvarint(); n > 0 && !c.bad; n-- {
			k := c.uvarint()
			if k >= uint64(len(ps.classes)) {
				return fmt.Errorf("%w: error class", errPackedSeconds)
			}
			rec.errs[ps.classes[k]] += c.varint()
		}
		rec.Errors = rec.errs
	}
	if flags&packFlagDropped != 0 {
		rec.Dropped = c.varint()
	}
	if flags&packFlagTicks != 0 {
		rec.ticks.OK = c.ints(rec.ticks.OK[:0])
		rec.ticks.Bytes = c.ints(rec.ticks.Bytes[:0])
		rec.Ticks = &rec.ticks
	}
	rec.Packed.Split = ps.split
	for k := range rec.Packed.B {
		rec.Packed.B[k] = nil
		if flags&(packFlagLatency<<k) != 0 {
			rec.Packed.B[k] = c.bytes()
		}
	}
	if c.bad {
		return fmt.Errorf("%w: op record", errPackedSeconds)
	}
	return nil
}

// Tag is the tag of the histograms' form.
func (p *Hists) Tag() string {
	if p.Split {
		return splitTag
	}
	return packedTag
}

var errNoSeconds = errors.New("packed seconds hold no second")

// Unpack is the seconds of a packed blob, as a file written before
// version 5 would have held them (histograms in the packed form).
func Unpack(blob []byte, dec *Decoder) ([]Second, error) {
	ps, err := Open(blob)
	if err != nil {
		return nil, err
	}
	var secs []Second
	var rec Record
	var buf []byte
	for {
		raw, err := ps.nextFrame(dec, buf)
		if err == nil && raw == nil && len(secs) == 0 {
			err = errNoSeconds // a writer packs only streams that have seconds
		}
		if err != nil || raw == nil {
			return secs, err
		}
		buf = raw
		err = ps.eachRecord(raw, &rec, func(t int64) { secs = append(secs, Second{T: t}) }, func(r *Record) error {
			o := r.OpSecond
			o.Errors = nil
			if len(r.Errors) > 0 {
				o.Errors = maps.Clone(r.Errors)
			}
			if o.Ticks != nil {
				o.Ticks = &Ticks{OK: slices.Clone(r.ticks.OK), Bytes: slices.Clone(r.ticks.Bytes)}
			}
			for k, b := range r.Packed.B {
				if b != nil {
					o.Hists[k] = r.Packed.Tag() + string(b)
				}
			}
			s := &secs[len(secs)-1]
			s.Ops = append(s.Ops, o)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
}

// cursor reads varints from b; bad says one ran past the end or was
// malformed (what follows reads zeros).
type cursor struct {
	b   []byte
	i   int
	bad bool
}

func (c *cursor) uvarint() uint64 {
	if c.bad {
		return 0
	}
	v, n := binary.Uvarint(c.b[c.i:])
	if n <= 0 {
		c.bad = true
		return 0
	}
	c.i += n
	return v
}

func (c *cursor) byte() byte {
	if c.bad || c.i >= len(c.b) {
		c.bad = true
		return 0
	}
	c.i++
	return c.b[c.i-1]
}

func (c *cursor) varint() int64 {
	u := c.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

// bytes is a length and that many bytes (a view into b).
func (c *cursor) bytes() []byte {
	n := c.uvarint()
	if c.bad || n > uint64(len(c.b)-c.i) {
		c.bad = true
		return nil
	}
	b := c.b[c.i : c.i+int(n) : c.i+int(n)]
	c.i += int(n)
	return b
}

// ints is a count and that many ZigZag varints appended to dst; a count
// beyond what the bytes left could hold is corrupt.
func (c *cursor) ints(dst []int64) []int64 {
	n := c.uvarint()
	if n > uint64(len(c.b)-c.i) {
		c.bad = true
	}
	for ; n > 0 && !c.bad; n-- {
		dst = append(dst, c.varint())
	}
	return dst
}

func (c *cursor) names() []string {
	n := c.uvarint()
	if n > maxNames {
		c.bad = true
	}
	var out []string
	for ; n > 0 && !c.bad; n-- {
		out = append(out, string(c.bytes()))
	}
	return out
}
