package resultpack

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/klauspost/compress/huff0"
	"github.com/klauspost/compress/zstd"
)

// A frame's codec (packed seconds version 2; version 1 frames are zstd,
// or stored when their compressed length is 0).
//
// Seconds of real latencies are bucket gaps and counts whose bytes
// repeat little: Huffman coding alone (huff0, zstd's own entropy stage)
// packs them as small as zstd does and decodes twice as fast, zstd's
// matches costing more to decode than they save (a worker file of the
// merge benchmark: zstd 2.24 times at 490 MB/s, huff0 2.34 times at 970
// MB/s). Seconds that repeat exactly (an idle stream) are what zstd's
// matches are for, so a writer compresses each frame both ways and keeps
// huff0 unless zstd is an eighth smaller.
const (
	codecStored = 0
	codecZstd   = 1
	codecHuff0  = 2
	// huffBlock is the raw length of a huff0 frame's blocks (huff0
	// codes at most 256 KiB at once); each has its own table.
	huffBlock = 128 << 10
)

// Decoder decodes a stream's frames; one goroutine's.
type Decoder struct {
	z           *zstd.Decoder // made at the first zstd frame
	h           huff0.Scratch
	text, coded []byte // a lazy frame's base64 text and bytes (lazy.go)
}

// NewDecoder is a decoder for packed frames: one goroutine's, it starts
// none of its own. Close releases it.
func NewDecoder() *Decoder { return &Decoder{} }

// Close releases the zstd decoder.
func (d *Decoder) Close() {
	if d.z != nil {
		d.z.Close()
	}
}

// zstdSlack is what a frame's buffer holds beyond its raw length.
const zstdSlack = 16

// decode is frame f's raw bytes, in buf (reused).
func (d *Decoder) decode(f frameRef, buf []byte) ([]byte, error) {
	switch f.codec {
	case codecStored:
		return append(buf[:0], f.data...), nil
	case codecHuff0:
		buf = frameBuf(buf, f.rawLen)
		return d.huff0(f.data, buf[:f.rawLen])
	}
	if d.z == nil {
		d.z, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecodeAllCapLimit(true),
			zstd.WithDecoderMaxMemory(frameMax)) // options that cannot fail
	}
	buf = frameBuf(buf, f.rawLen+zstdSlack)
	// The slack lets the decoder copy in 16-byte blocks, which it does
	// only when the buffer has room for them (its bounds-exact copies are
	// slower); the frame still may not decode to more than rawLen.
	raw, err := d.z.DecodeAll(f.data, buf[:0:f.rawLen+zstdSlack])
	if err != nil || len(raw) != f.rawLen {
		return nil, fmt.Errorf("%w: frame: %v", errPackedSeconds, err)
	}
	return raw, nil
}

// crcTable is CRC-32C's: a huff0 frame ends with the checksum of its raw
// bytes (as zstd frames carry theirs), so a flipped bit is an error, not
// other numbers.
var crcTable = crc32.MakeTable(crc32.Castagnoli)

// frameBuf is buf, or when it holds less than n bytes a new buffer an
// eighth larger: a file's frames differ in length by a second or so, and
// a merge that decoded each into a buffer of its exact length allocated
// (and faulted in) one for most frames of most files.
func frameBuf(buf []byte, n int) []byte {
	if cap(buf) < n {
		return make([]byte, 0, n+n/8)
	}
	return buf
}

// huff0 decodes a huff0 frame's blocks into out, whose length is the
// frame's raw length: each block a uvarint of its coded length and that
// many bytes (a table and four streams), or 0 and its raw bytes stored;
// then the CRC-32C of the raw bytes, 4 bytes little-endian.
func (d *Decoder) huff0(data, out []byte) ([]byte, error) {
	if len(data) < 4 {
		return nil, fmt.Errorf("%w: huff0 frame", errPackedSeconds)
	}
	sum := binary.LittleEndian.Uint32(data[len(data)-4:])
	data = data[:len(data)-4]
	for o := 0; o < len(out); {
		n := min(huffBlock, len(out)-o)
		c, k := binary.Uvarint(data)
		if k <= 0 || c > uint64(len(data)-k) || c == 0 && n > len(data)-k {
			return nil, fmt.Errorf("%w: huff0 block", errPackedSeconds)
		}
		data = data[k:]
		if c == 0 {
			copy(out[o:], data[:n])
			data = data[n:]
		} else {
			s, streams, err := huff0.ReadTable(data[:c], &d.h)
			if err != nil {
				return nil, fmt.Errorf("%w: huff0 block: %v", errPackedSeconds, err)
			}
			// Decompress4X fills its destination's capacity: exactly n.
			got, err := s.Decoder().Decompress4X(out[o:o:o+n], streams)
			if err != nil || len(got) != n {
				return nil, fmt.Errorf("%w: huff0 block: %v", errPackedSeconds, err)
			}
			data = data[c:]
		}
		o += n
	}
	if len(data) != 0 {
		return nil, fmt.Errorf("%w: huff0 frame: %d bytes after its blocks", errPackedSeconds, len(data))
	}
	if crc32.Checksum(out, crcTable) != sum {
		return nil, fmt.Errorf("%w: huff0 frame: checksum", errPackedSeconds)
	}
	return out, nil
}

// frameEncoder compresses frames; one goroutine's.
type frameEncoder struct {
	z      *zstd.Encoder
	h      huff0.Scratch
	sample []byte
}

func (e *frameEncoder) close() {
	if e.z != nil {
		_ = e.z.Close()
	}
}

// encode is raw compressed, and its codec: huff0 unless zstd is an
// eighth smaller. A frame longer than twice 32 KiB is judged by its
// first 32 KiB (seconds that repeat do so within it): huff0 unless zstd
// wins that much there, and then zstd unless it packs the whole frame
// less than an eighth smaller than huff0 packed the sample, so that a
// frame is compressed once, not both ways (merged seconds, which zstd
// packs better, were a merge's serial tenth).
func (e *frameEncoder) encode(raw []byte) ([]byte, byte) {
	if e.z == nil {
		// Options that cannot fail; the fastest level compresses these
		// varints as well as the default.
		e.z, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
			zstd.WithEncoderCRC(true))
	}
	if len(raw) > 2*sampleLen {
		e.sample = e.z.EncodeAll(raw[:sampleLen], e.sample[:0])
		hs := e.huff0(raw[:sampleLen], e.sample[len(e.sample):])
		if len(e.sample) >= len(hs)-len(hs)/8 {
			return e.huff0(raw, make([]byte, 0, len(raw)/2)), codecHuff0
		}
		z := e.z.EncodeAll(raw, nil)
		if est := len(hs) * len(raw) / sampleLen; len(z) < est-est/8 {
			return z, codecZstd
		}
		return e.huff0(raw, make([]byte, 0, len(z)+len(z)/8+16)), codecHuff0
	}
	z := e.z.EncodeAll(raw, nil)
	h := e.huff0(raw, make([]byte, 0, len(z)+len(z)/8+16))
	if len(z) < len(h)-len(h)/8 {
		return z, codecZstd
	}
	return h, codecHuff0
}

// sampleLen is how much of a frame decides whether zstd is tried on it.
const sampleLen = 32 << 10

// huff0 appends raw's huff0 blocks and checksum to dst.
func (e *frameEncoder) huff0(raw, dst []byte) []byte {
	sum := crc32.Checksum(raw, crcTable)
	for len(raw) > 0 {
		n := min(huffBlock, len(raw))
		e.h.Reuse = huff0.ReusePolicyNone // every block carries its table
		c, _, err := huff0.Compress4X(raw[:n], &e.h)
		if err != nil || len(c) >= n { // incompressible, or one byte repeated: stored
			dst = binary.AppendUvarint(dst, 0)
			dst = append(dst, raw[:n]...)
		} else {
			dst = binary.AppendUvarint(dst, uint64(len(c)))
			dst = append(dst, c...)
		}
		raw = raw[n:]
	}
	return binary.LittleEndian.AppendUint32(dst, sum)
}

// stored says whether a frame of raw is stored rather than as z, its
// compression (appendFrame).
func stored(raw, z []byte) bool { return len(raw) > maxRatio*len(z) || len(z) >= len(raw) }

// appendFrame appends a frame of raw, z its compression by codec, or raw
// stored when it compresses more than maxRatio: a reader refuses frames
// that claim to, so that what a hostile file makes it allocate is
// bounded by the file's size.
func appendFrame(out []byte, first int64, raw, z []byte, codec byte) []byte {
	out = binary.AppendVarint(out, first)
	out = binary.AppendUvarint(out, uint64(len(raw)))
	if stored(raw, z) {
		codec, z = codecStored, raw
	}
	out = append(out, codec)
	out = binary.AppendUvarint(out, uint64(len(z)))
	return append(out, z...)
}
