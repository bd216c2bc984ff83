package resultpack

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"
)

// A stream's packed seconds (result version 5, the result's
// Stream.Packed): a header
// of a version byte (packVersion), two name tables (the ops, then the
// error classes: a count, then each as its length and bytes) and the
// last second's T (ZigZag), then frames, each the T of its first second
// (ZigZag), a varint of its raw length, its codec (a byte:
// frame.go), a varint of its coded length and its coded bytes. (Version 1, still read, has
// no codec byte: a zstd frame, or the raw bytes stored as they are when
// its coded length is 0. Versions 1 and 2 hold histograms in the gap
// form, version 3 in the split form: gapform.go, split.go.) A frame
// holds whole seconds, in T order; frames are independent, so a reader
// holds one at a time and a merge finds where any second lies. A frame's
// raw bytes are its seconds, each
//
//	varint T (ZigZag), varint number of op records, then each op record:
//	varint op (index into the op table), varint flags (packFlag*),
//	ZigZag ops and bytes, then as its flags say:
//	errors: a count, then each class (table index) and its ZigZag count;
//	dropped (ZigZag); ticks: the ok counts, then the byte counts, each a
//	count of ZigZag values; then the latency, TTFB and response
//	histograms, each a length and its packed payload (gapform.go,
//	split.go).
//
// Varints are encoding/binary's. The packing is lossless: a file read
// back holds the seconds it was written from.
const (
	packVersion = 3
	// A frame is cut after the second that brings it past frameTarget
	// raw bytes; none may exceed frameMax (what a reader allocates for
	// hostile input is bounded by it).
	frameTarget = 256 << 10
	frameMax    = 16 << 20
	maxNames    = 1 << 12
	// maxRatio bounds a frame's raw length by its compressed length.
	// Seconds of real latencies compress 2-3 times; seconds that repeat
	// exactly, up to 100 times.
	maxRatio = 64
	// MaxT bounds a second's T (388 days), so that no merge or timeline
	// lays out seconds without end.
	MaxT = 1 << 25
)

const (
	packFlagErrors = 1 << iota
	packFlagDropped
	packFlagTicks
	packFlagLatency
	packFlagTTFB
	packFlagResponse
	packFlagAll = 1<<iota - 1
)

var errPackedSeconds = errors.New("corrupt packed seconds")

// Second is one second of a stream: the result's Second, which result
// turns into this and back (this package knows no result types, so that
// result can import it).
type Second struct {
	T   int64
	Ops []OpSecond
}

// OpSecond is one op's record of one second (the result's OpSecond):
// Hists are its latency, TTFB and response histograms, each "" or in a
// packed form with its tag, or, to be packed, V2 text as older files hold
// them.
type OpSecond struct {
	Op      string
	Ops     int64
	Bytes   int64
	Errors  map[string]int64
	Dropped int64
	Ticks   *Ticks
	Hists   [3]string
}

// Ticks is the result's Ticks: one op's successful ops and their bytes
// per tick of a second, trailing zero ticks left out.
type Ticks struct {
	OK    []int64
	Bytes []int64
}

// Packer packs seconds; one per goroutine (it reuses its buffers).
type Packer struct {
	enc    [2]frameEncoder
	raw    []byte
	hist   []byte
	codec  Codec
	sparse sparseHist
	split  SplitWriter
}

// Close releases the encoders.
func (p *Packer) Close() {
	for w := range p.enc {
		p.enc[w].close()
	}
}

// Pack is secs in the packed form.
func (p *Packer) Pack(secs []Second) ([]byte, error) {
	ops, classes := map[string]uint64{}, map[string]uint64{}
	var opNames, classNames []string
	size := 0 // about what the raw seconds take: they are appended once, not grown into
	for _, s := range secs {
		size += 8
		for _, o := range s.Ops {
			size += 32 + len(o.Hists[0]) + len(o.Hists[1]) + len(o.Hists[2]) + 16*len(o.Errors)
			if o.Ticks != nil {
				size += 4 * (len(o.Ticks.OK) + len(o.Ticks.Bytes))
			}
			if _, ok := ops[o.Op]; !ok {
				ops[o.Op] = uint64(len(opNames))
				opNames = append(opNames, o.Op)
			}
			for c := range o.Errors {
				if _, ok := classes[c]; !ok {
					classes[c] = uint64(len(classNames))
					classNames = append(classNames, c)
				}
			}
		}
	}
	if len(opNames) > maxNames || len(classNames) > maxNames {
		return nil, fmt.Errorf("pack seconds: %d ops, %d error classes (at most %d)", len(opNames), len(classNames), maxNames)
	}
	if len(secs) == 0 {
		return nil, errNoSeconds
	}
	secs = sortedSeconds(secs)
	out := []byte{packVersion}
	out = appendNames(out, opNames)
	out = appendNames(out, classNames)
	out = binary.AppendVarint(out, secs[len(secs)-1].T)
	return p.appendFrames(out, secs, size, ops, classes)
}

// appendFrames appends secs (sorted), cut into frames, to out: their raw
// bytes (about size in all) each the T of its first second and where it
// ends in raw, each compressed by one of two goroutines as soon as it is
// cut (appending to raw never changes the bytes of a frame already cut,
// wherever raw moves to).
func (p *Packer) appendFrames(out []byte, secs []Second, size int, ops, classes map[string]uint64) ([]byte, error) {
	if cap(p.raw) < size {
		p.raw = make([]byte, 0, size)
	}
	p.raw = p.raw[:0]
	type frame struct {
		first  int64
		from   int
		raw, z []byte
		codec  byte
	}
	var frames []*frame
	todo := make(chan *frame, 16)
	var g errgroup.Group
	for w := range 2 { // merged files are big; a worker's takes 30 ms
		g.Go(func() error {
			for f := range todo {
				f.z, f.codec = p.enc[w].encode(f.raw)
			}
			return nil
		})
	}
	cut := func(to int) {
		f := frames[len(frames)-1]
		f.raw = p.raw[f.from:to]
		todo <- f
	}
	start := 0
	var err error
	for _, s := range secs {
		mark := len(p.raw)
		if mark == start {
			frames = append(frames, &frame{first: s.T, from: start})
		}
		if p.raw, err = p.appendSecond(p.raw, s, ops, classes); err != nil {
			break
		}
		if len(p.raw)-mark > frameMax {
			err = fmt.Errorf("pack seconds: second %d holds %d bytes (at most %d)", s.T, len(p.raw)-mark, frameMax)
			break
		}
		if len(p.raw)-start > frameMax { // this second would overflow the frame: it opens the next
			cut(mark)
			start = mark
			frames = append(frames, &frame{first: s.T, from: mark})
		}
		if len(p.raw)-start >= frameTarget {
			cut(len(p.raw))
			start = len(p.raw)
		}
	}
	if f := frames[len(frames)-1]; err == nil && f.raw == nil {
		cut(len(p.raw))
	}
	close(todo)
	_ = g.Wait() // the compressors do not fail
	if err != nil {
		return nil, err
	}
	n := 0
	for _, f := range frames {
		n += 3*binary.MaxVarintLen64 + 1 + len(f.z)
		if stored(f.raw, f.z) {
			n += len(f.raw) - len(f.z)
		}
	}
	out = slices.Grow(out, n)
	for _, f := range frames {
		out = appendFrame(out, f.first, f.raw, f.z, f.codec)
	}
	return out, nil
}

// sortedSeconds is secs in T order (a copy when they were not): a file
// written before version 5, or by hand, may hold them in any order.
func sortedSeconds(secs []Second) []Second {
	if slices.IsSortedFunc(secs, func(a, b Second) int { return cmp.Compare(a.T, b.T) }) {
		return secs
	}
	secs = slices.Clone(secs)
	slices.SortStableFunc(secs, func(a, b Second) int { return cmp.Compare(a.T, b.T) })
	return secs
}

func appendNames(b []byte, names []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(names)))
	for _, n := range names {
		b = binary.AppendUvarint(b, uint64(len(n)))
		b = append(b, n...)
	}
	return b
}

func (p *Packer) appendSecond(b []byte, s Second, ops, classes map[string]uint64) ([]byte, error) {
	b = binary.AppendVarint(b, s.T)
	b = binary.AppendUvarint(b, uint64(len(s.Ops)))
	for _, o := range s.Ops {
		var flags uint64
		if len(o.Errors) > 0 {
			flags |= packFlagErrors
		}
		if o.Dropped != 0 {
			flags |= packFlagDropped
		}
		if o.Ticks != nil {
			flags |= packFlagTicks
		}
		for k, h := range o.Hists {
			if h != "" {
				flags |= packFlagLatency << k
			}
		}
		b = binary.AppendUvarint(b, ops[o.Op])
		b = binary.AppendUvarint(b, flags)
		b = binary.AppendVarint(b, o.Ops)
		b = binary.AppendVarint(b, o.Bytes)
		if flags&packFlagErrors != 0 {
			b = binary.AppendUvarint(b, uint64(len(o.Errors)))
			for c, n := range o.Errors {
				b = binary.AppendUvarint(b, classes[c])
				b = binary.AppendVarint(b, n)
			}
		}
		if flags&packFlagDropped != 0 {
			b = binary.AppendVarint(b, o.Dropped)
		}
		if flags&packFlagTicks != 0 {
			b = appendInts(b, o.Ticks.OK)
			b = appendInts(b, o.Ticks.Bytes)
		}
		for _, h := range o.Hists {
			if h == "" {
				continue
			}
			var err error
			if b, err = p.appendHist(b, h); err != nil {
				return nil, fmt.Errorf("second %d, op %s: %w", s.T, o.Op, err)
			}
		}
	}
	return b, nil
}

// appendHist appends the histogram h (packed, or V2 text from an older
// file) as a length and its payload in the split form.
func (p *Packer) appendHist(b []byte, h string) ([]byte, error) {
	if strings.HasPrefix(h, splitTag) {
		b = binary.AppendUvarint(b, uint64(len(h)-len(splitTag)))
		return append(b, h[len(splitTag):]...), nil
	}
	if err := p.codec.decode(h, &p.sparse); err != nil { // the gap form, or V2 text
		return nil, histError(err)
	}
	p.hist = p.split.appendSparse(p.hist[:0], &p.sparse)
	b = binary.AppendUvarint(b, uint64(len(p.hist)))
	return append(b, p.hist...), nil
}

func appendInts(b []byte, v []int64) []byte {
	b = binary.AppendUvarint(b, uint64(len(v)))
	for _, x := range v {
		b = binary.AppendVarint(b, x)
	}
	return b
}
