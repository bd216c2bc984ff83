package resultpack

import (
	"fmt"
	"io"
)

// Lazy is a stream's packed seconds left in their file: a merge reads
// each frame's bytes when it gets to them (a range of the base64 text,
// decoded), so it holds no file's blob, only a frame at a time per file.
// A 100-worker hour held 290 MB of blobs, every page of it faulted in.
type Lazy struct {
	Name    string // the file's, for errors
	ReadAt  func(p []byte, off int64) (int, error)
	TextOff int64 // where the base64 text begins in the file
	TextLen int
}

// ReadLazily makes ps read its frames' bytes through l when it gets to
// them, and forgets those it holds (views into the blob Open read).
func (ps *Packed) ReadLazily(l Lazy) {
	ps.lazy = &l
	for f := range ps.frames {
		ps.frames[f].data = nil
	}
}

// fetch is the blob's bytes off..off+n, read and decoded into dec's
// buffers (valid until its next fetch).
func (l *Lazy) fetch(off, n int, dec *Decoder) ([]byte, error) {
	// Base64 turns each 3 bytes into 4 characters: the bytes lie in the
	// groups off/3 .. (off+n-1)/3.
	g0, g1 := off/3, (off+n+2)/3
	from, to := 4*g0, min(4*g1, l.TextLen)
	if n <= 0 || from >= to {
		return nil, fmt.Errorf("%w: frame at %d", errPackedSeconds, off)
	}
	if cap(dec.text) < to-from {
		dec.text = make([]byte, to-from)
	}
	text := dec.text[:to-from]
	if got, err := l.ReadAt(text, l.TextOff+int64(from)); got != len(text) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("%s: reading its packed seconds again: %w", l.Name, err)
	}
	coded, err := DecodeBase64(text, dec.coded)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.Name, err)
	}
	dec.coded = coded
	lo := off - 3*g0
	if lo+n > len(coded) {
		return nil, fmt.Errorf("%w: frame at %d", errPackedSeconds, off)
	}
	return coded[lo : lo+n], nil
}
