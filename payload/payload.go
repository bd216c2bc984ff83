package payload

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
)

// DefaultBlockSize is large enough that common compressors (windows of 32 KiB
// to a few MiB) never see the block repeat inside one window.
const DefaultBlockSize = 8 << 20

// Block is the shared source of payload bytes. It is read-only after
// construction and safe for concurrent use by many Readers. On Linux its
// bytes live in a memfd mapped into memory, so a Reader can offer them to
// a FileWriter as pieces of that file.
type Block struct {
	data []byte
	fd   int // the memfd data maps; -1: data is on the heap
	// period, when set, makes every object wrap within one period-long
	// run of the block (NewLettersBlock); 0: objects run through the block.
	period int
}

// NewBlock fills a block of size bytes from a seeded PRNG. compressRatio <= 1
// gives incompressible data; a ratio r > 1 zeroes all but 1/r of every 4 KiB
// chunk, so typical compressors shrink the data about r times.
func NewBlock(size int, seed uint64, compressRatio float64) (*Block, error) {
	if size < 4096 {
		return nil, errors.New("payload: block size must be at least 4096 bytes")
	}
	size &^= 7
	data, fd := newData(size)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	for i := 0; i+8 <= size; i += 8 {
		binary.LittleEndian.PutUint64(data[i:], rng.Uint64())
	}
	if compressRatio > 1 {
		keep := int(4096 / compressRatio)
		for c := 0; c < size; c += 4096 {
			end := min(c+4096, size)
			clear(data[min(c+keep, end):end])
		}
	}
	b := &Block{data: data, fd: fd}
	b.seal()
	return b, nil
}

// Size is the block length in bytes.
func (b *Block) Size() int { return len(b.data) }

// Reader streams size bytes of payload starting at an offset in the block.
// The zero value is empty; Reset makes it ready for one object. A worker keeps
// one Reader and resets it per op, so reading allocates nothing.
type Reader struct {
	block     *Block
	off       int   // next read position in block
	remaining int64 // bytes left in this object
	first     int   // block position of the object's (or part's) first byte
	size      int64 // the object's (or part's) size
}

// NewReader returns a Reader over b; call Reset before each object.
func NewReader(b *Block) *Reader { return &Reader{block: b} }

// Reset prepares the reader to produce size bytes, starting at a position in
// the block derived from seed (e.g. the object's index), so different objects
// carry different bytes.
func (r *Reader) Reset(seed uint64, size int64) {
	r.ResetAt(seed, 0, size)
}

// ResetAt prepares the reader to produce size bytes of the object with
// this seed starting at offset within it: the parts of a multipart upload
// together carry the same bytes as one Reset of the whole size.
func (r *Reader) ResetAt(seed uint64, offset, size int64) {
	r.off = r.block.start(seed, offset)
	r.first, r.size, r.remaining = r.off, size, size
}

// Seek moves within the current object (io.Seeker), so a request body can
// be replayed when a stale connection failed before the server answered.
func (r *Reader) Seek(offset int64, whence int) (int64, error) {
	pos := offset
	switch whence {
	case io.SeekCurrent:
		pos += r.size - r.remaining
	case io.SeekEnd:
		pos += r.size
	}
	if pos < 0 || pos > r.size {
		return 0, fmt.Errorf("payload: seek to %d outside the object's %d bytes", pos, r.size)
	}
	lo, hi := r.block.bounds(r.first)
	r.off = lo + int((int64(r.first-lo)+pos)%int64(hi-lo))
	r.remaining = r.size - pos
	return pos, nil
}

// start is where in the block byte offset of the object with seed lies.
// An object's bytes depend on its seed and offset only, never its size.
func (b *Block) start(seed uint64, offset int64) int {
	if p := uint64(b.period); p > 0 {
		piece := (seed * 0x9e3779b97f4a7c15) % (uint64(len(b.data)) / p)
		return int(piece*p + uint64(offset)%p)
	}
	n := uint64(len(b.data))
	return int(((seed*0x9e3779b97f4a7c15)%n + uint64(offset)%n) % n)
}

// bounds is the part of the block an object reading at off wraps within:
// the whole block, or the period-long piece that holds off.
func (b *Block) bounds(off int) (lo, hi int) {
	if b.period == 0 {
		return 0, len(b.data)
	}
	lo = off - off%b.period
	return lo, lo + b.period
}

// Read implements io.Reader.
func (r *Reader) Read(p []byte) (int, error) {
	if r.remaining <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > r.remaining {
		p = p[:r.remaining]
	}
	_, hi := r.block.bounds(r.off)
	n := copy(p, r.block.data[r.off:hi])
	r.advance(n)
	return n, nil
}

// FileWriter is a writer that can also take bytes straight from a file,
// as sendfile(2) does: a Reader whose block lives in a file (a memfd, on
// Linux) hands such a writer its pieces as places in that file, and the
// kernel takes the pages without copying them out of the process. The
// writer does the I/O; the Reader only says where the bytes are.
type FileWriter interface {
	io.Writer
	// WriteFile writes the n bytes at off in the file fd, as Write would
	// write them, and returns how many it wrote (< n only with an error).
	WriteFile(fd int, off int64, n int) (int, error)
}

// WriteTo implements io.WriterTo so io.Copy (and net/http's body writer) write
// straight from the block without an intermediate buffer. A FileWriter is
// given the pieces as places in the block's file when it has one.
func (r *Reader) WriteTo(w io.Writer) (int64, error) {
	if r.remaining <= 0 {
		return 0, nil
	}
	fw, _ := w.(FileWriter)
	if r.block.fd < 0 {
		fw = nil
	}
	var total int64
	for r.remaining > 0 {
		_, hi := r.block.bounds(r.off)
		chunk := r.block.data[r.off:hi]
		if int64(len(chunk)) > r.remaining {
			chunk = chunk[:r.remaining]
		}
		var n int
		var err error
		if fw != nil {
			n, err = fw.WriteFile(r.block.fd, int64(r.off), len(chunk))
		} else {
			n, err = w.Write(chunk)
		}
		total += int64(n)
		r.advance(n)
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// Len is the number of bytes still to be read.
func (r *Reader) Len() int64 { return r.remaining }

func (r *Reader) advance(n int) {
	lo, hi := r.block.bounds(r.off)
	r.remaining -= int64(n)
	r.off += n
	if r.off >= hi {
		r.off = lo
	}
}
