package loadgen

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"hash"
	"io"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/payload"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/workload"
)

// COSBench's hashCheck, as its driver does it: an object written with it
// of more than 40 bytes is its data less the last 40 bytes, then "!!!!",
// the MD5 of that data in lower-case hex, and "!!!!"
// (dev/cosbench-driver/src/com/intel/cosbench/driver/generator/
// RandomInputStream.java, util/HashUtil.java); a smaller one carries no
// trailer. A read with it hashes all but the last 40 bytes and compares:
// a difference where the stored part starts with the guard fails the
// read, one without the guard is an object that carries no checksum,
// counted as read (operator/Reader.java, validateChecksum, which logs "No
// checksum embedded"); an object of 40 bytes or less is not checked.

const hashGuard = "!!!!"

const trailerLen = workload.HashTrailerLen

// hashedBody is a PUT body in COSBench's hashCheck layout: the payload's
// first n bytes, then their trailer. It seeks (a request replayed after a
// stale connection) and writes itself out (no copy through a buffer).
type hashedBody struct {
	data    *payload.Reader
	n, off  int64
	trailer [trailerLen]byte
}

// trailerOf fills out with the trailer of d (guard, hex MD5, guard).
func trailerOf(out *[trailerLen]byte, sum []byte) {
	copy(out[:], hashGuard)
	hex.Encode(out[len(hashGuard):], sum)
	copy(out[trailerLen-len(hashGuard):], hashGuard)
}

// hashes reports whether t's PUT carries COSBench's trailer.
func (w *worker) hashes(t task) bool {
	if t.op != metrics.OpPut || t.src != nil || t.size <= trailerLen {
		return false
	}
	if t.def != nil {
		return t.def.hashCheck
	}
	return w.s.work.hashCheck
}

// hashedBody makes t's body: the data hashed once to make the trailer,
// then served again from the start.
func (w *worker) hashedBody(t task) (*hashedBody, error) {
	if w.md5 == nil {
		w.md5, w.hb = md5.New(), &hashedBody{}
	}
	b := w.hb
	b.data, b.n, b.off = w.body, t.size-trailerLen, 0
	w.md5.Reset()
	b.data.Reset(t.seed, b.n)
	if _, err := b.data.WriteTo(w.md5); err != nil {
		return nil, err
	}
	var sum [md5.Size]byte
	trailerOf(&b.trailer, w.md5.Sum(sum[:0]))
	b.data.Reset(t.seed, b.n)
	return b, nil
}

func (b *hashedBody) Read(p []byte) (int, error) {
	if b.off < b.n {
		if rest := b.n - b.off; int64(len(p)) > rest {
			p = p[:rest]
		}
		k, err := b.data.Read(p)
		b.off += int64(k)
		return k, err
	}
	if b.off >= b.n+trailerLen {
		return 0, io.EOF
	}
	k := copy(p, b.trailer[b.off-b.n:])
	b.off += int64(k)
	return k, nil
}

func (b *hashedBody) WriteTo(w io.Writer) (int64, error) {
	var total int64
	if b.off < b.n {
		k, err := b.data.WriteTo(w)
		b.off += k
		total += k
		if err != nil {
			return total, err
		}
	}
	if b.off >= b.n+trailerLen {
		return total, nil
	}
	k, err := w.Write(b.trailer[b.off-b.n:])
	b.off += int64(k)
	return total + int64(k), err
}

func (b *hashedBody) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		offset += b.off
	case io.SeekEnd:
		offset += b.n + trailerLen
	}
	if offset < 0 || offset > b.n+trailerLen {
		return 0, fmt.Errorf("seek to %d outside the object's %d bytes", offset, b.n+trailerLen)
	}
	if _, err := b.data.Seek(min(offset, b.n), io.SeekStart); err != nil {
		return 0, err
	}
	b.off = offset
	return offset, nil
}

// trailerCheck checks the bytes written to it as COSBench's Reader does:
// it hashes all but the last 40 and keeps those to compare.
type trailerCheck struct {
	h     hash.Hash
	tail  [trailerLen]byte
	n     int // bytes held in tail
	total int64
}

// The verdicts of a trailerCheck.
const (
	trailerOK      = iota // the trailer matches, or the object is too small to carry one
	trailerBad            // a trailer that does not match
	trailerMissing        // no trailer: an object written without hashCheck
)

func (c *trailerCheck) reset() {
	if c.h == nil {
		c.h = md5.New()
	}
	c.h.Reset()
	c.n, c.total = 0, 0
}

func (c *trailerCheck) Write(p []byte) (int, error) {
	c.total += int64(len(p))
	over := c.n + len(p) - trailerLen // how many of tail+p leave the tail
	switch {
	case over <= 0:
		copy(c.tail[c.n:], p)
		c.n += len(p)
	case over >= c.n:
		c.h.Write(c.tail[:c.n])
		c.h.Write(p[:over-c.n])
		copy(c.tail[:], p[over-c.n:])
		c.n = trailerLen
	default:
		c.h.Write(c.tail[:over])
		copy(c.tail[:], c.tail[over:c.n])
		copy(c.tail[c.n-over:], p)
		c.n = trailerLen
	}
	return len(p), nil
}

// verdict compares the object's last 40 bytes with the MD5 of the rest.
func (c *trailerCheck) verdict() int {
	if c.total <= trailerLen {
		return trailerOK
	}
	var want [trailerLen]byte
	var sum [md5.Size]byte
	trailerOf(&want, c.h.Sum(sum[:0]))
	switch {
	case want == c.tail:
		return trailerOK
	case string(c.tail[:len(hashGuard)]) == hashGuard:
		return trailerBad
	}
	return trailerMissing
}

// readTrailer reads t's object whole and checks its trailer.
func (w *worker) readTrailer(ctx context.Context, t task, o storage.GetOptions) (int64, error) {
	w.tc.reset()
	n, err := w.read(ctx, t, o, &w.tc)
	if err != nil {
		return n, err
	}
	switch w.tc.verdict() {
	case trailerBad:
		return n, &storage.OpError{Op: "get", Key: t.key, Err: storage.ErrChecksum}
	case trailerMissing:
		w.s.untrailed.Add(1)
	}
	if t.exact && n != t.size {
		return n, &storage.OpError{Op: "get", Key: t.key, Err: storage.ErrChecksum}
	}
	return n, nil
}

// hashNotes say how many objects read with hashCheck carried no trailer.
func hashNotes(runs []*streamRun) []string {
	var out []string
	for _, s := range runs {
		if n := s.untrailed.Load(); n > 0 {
			out = append(out, fmt.Sprintf("stream %s: %d objects read with hashCheck carried no COSBench checksum (written without hashCheck): counted as read, as COSBench's Reader does, but not checked", s.name, n))
		}
	}
	return out
}
