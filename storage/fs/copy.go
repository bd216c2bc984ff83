package fs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
	"unsafe"

	"github.com/objbench/objbench/storage"
)

// alignedBuf returns size bytes starting at a blockSize boundary, as O_DIRECT
// requires of user buffers.
func alignedBuf(size int) []byte {
	b := make([]byte, size+blockSize)
	off := int(uintptr(unsafe.Pointer(&b[0])) & (blockSize - 1))
	if off != 0 {
		off = blockSize - off
	}
	return b[off : off+size : off+size]
}

func alignUp(n int64) int64 { return (n + blockSize - 1) &^ (blockSize - 1) }

// copyIn writes size bytes (or, if size < 0, everything) from body to f in
// whole buffers. With O_DIRECT the last block is zero-padded to the
// alignment and the file truncated back to its real length afterwards.
func (s *Store) copyIn(ctx context.Context, f *os.File, body io.Reader, size int64) (int64, error) {
	if wt, ok := body.(io.WriterTo); ok && !s.direct && size >= 0 {
		// A body that can write itself (the payload generator) goes to the
		// file without a copy through our buffer.
		n, err := wt.WriteTo(ctxWriter{ctx, f})
		if err == nil && n != size {
			err = fmt.Errorf("body had %d of %d bytes: %w", n, size, io.ErrUnexpectedEOF)
		}
		return n, err
	}
	bp := s.bufs.Get().(*[]byte)
	defer s.bufs.Put(bp)
	buf := *bp
	var n int64
	for size < 0 || n < size {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		chunk := buf
		if size >= 0 && size-n < int64(len(chunk)) {
			chunk = chunk[:size-n]
		}
		m, rerr := io.ReadFull(body, chunk)
		if m > 0 {
			out := buf[:m]
			if s.direct {
				out = buf[:alignUp(int64(m))]
				clear(out[m:])
			}
			if _, err := f.Write(out); err != nil {
				return n, err
			}
			n += int64(m)
		}
		if errors.Is(rerr, io.EOF) || errors.Is(rerr, io.ErrUnexpectedEOF) {
			if size < 0 {
				break
			}
			return n, fmt.Errorf("body ended after %d of %d bytes: %w", n, size, io.ErrUnexpectedEOF)
		}
		if rerr != nil {
			return n, rerr
		}
	}
	if s.direct && n%blockSize != 0 {
		return n, f.Truncate(n)
	}
	return n, nil
}

// copyOut writes n bytes of f starting at off to w. With O_DIRECT it reads
// whole aligned blocks and writes only the requested bytes out of them.
func (s *Store) copyOut(ctx context.Context, f *os.File, off, n int64, w io.Writer, tr *storage.Trace) (int64, error) {
	pos, skip := off, int64(0)
	if s.direct {
		pos = off &^ (blockSize - 1)
		skip = off - pos
	}
	if pos != 0 {
		if _, err := f.Seek(pos, io.SeekStart); err != nil {
			return 0, err
		}
	}
	bp := s.bufs.Get().(*[]byte)
	defer s.bufs.Put(bp)
	buf := *bp
	var written int64
	for first := true; first || written < n; first = false {
		if err := ctx.Err(); err != nil {
			return written, err
		}
		want := min(int64(len(buf)), skip+n-written)
		if s.direct {
			want = min(int64(len(buf)), alignUp(want))
		}
		m, rerr := f.Read(buf[:want])
		if first && tr != nil {
			tr.FirstByte = time.Now()
		}
		if int64(m) > skip {
			data := buf[skip:m]
			if rest := n - written; int64(len(data)) > rest {
				data = data[:rest]
			}
			k, err := w.Write(data)
			written += int64(k)
			if err != nil {
				return written, err
			}
			skip = 0
		} else if s.direct && m > 0 {
			rerr = io.EOF // a short direct read happens only at the end of the file
		}
		if errors.Is(rerr, io.EOF) && written < n {
			return written, fmt.Errorf("file ended before the %d bytes its size promised: %w", off+n, io.ErrUnexpectedEOF)
		}
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return written, rerr
		}
	}
	return written, nil
}

// ctxWriter stops writing once ctx ends.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}
