package s3

import (
	"errors"
	"fmt"
	"hash"
	"io"
	"strconv"
	"sync"
)

// awsChunkSize is the data per chunk, as the AWS SDKs send it.
const awsChunkSize = 64 << 10

// streamingTrailer is the payload hash of an unsigned aws-chunked body
// with trailing headers.
const streamingTrailer = "STREAMING-UNSIGNED-PAYLOAD-TRAILER"

// awsChunked frames a body as aws-chunked with an unsigned trailer that
// carries the checksum, computed while the body streams:
//
//	<hex size>\r\n<data>\r\n ... 0\r\nx-amz-checksum-<algo>:<base64>\r\n\r\n
//
// Its WriteTo passes the source's own writes through (no copy of the
// payload when the source is a WriterTo); Read serves other readers.
type awsChunked struct {
	src  io.Reader
	size int64
	bufs *sync.Pool // copy buffers, for sources without WriterTo
	k    *checksumKind
	h    hash.Hash
	seek int64 // where src started, to send it again (-1: not seekable)

	sent  int64 // payload bytes passed on
	left  int64 // payload bytes left in the current chunk
	pend  []byte
	buf   [128]byte // framing being sent; pend points into it
	done  bool      // the trailer has been framed
	value string    // the checksum, once the payload has gone
}

func newAWSChunked(src io.Reader, size int64, k *checksumKind, bufs *sync.Pool) *awsChunked {
	c := &awsChunked{src: src, size: size, bufs: bufs, k: k, h: k.get(), seek: -1}
	if sk, ok := src.(io.Seeker); ok {
		if pos, err := sk.Seek(0, io.SeekCurrent); err == nil {
			c.seek = pos
		}
	}
	return c
}

// encodedLen is the framed body's length, sent as Content-Length.
func (c *awsChunked) encodedLen() int64 {
	var n int64
	for left := c.size; left > 0; left -= awsChunkSize {
		cs := min(left, awsChunkSize)
		n += int64(len(strconv.FormatInt(cs, 16))) + 2 + cs + 2
	}
	return n + 3 + int64(len(c.k.trailer)+1+base64Len(c.h.Size())+2) + 2
}

func base64Len(n int) int { return (n + 2) / 3 * 4 }

// rewind prepares the body to be sent again (a stale connection's retry).
func (c *awsChunked) rewind() error {
	if c.seek < 0 {
		return errors.New("s3: body cannot be sent again")
	}
	if _, err := c.src.(io.Seeker).Seek(c.seek, io.SeekStart); err != nil {
		return err
	}
	c.h.Reset()
	c.sent, c.left, c.pend, c.done, c.value = 0, 0, nil, false, ""
	return nil
}

// release returns the hash to its pool; the body is not used again.
func (c *awsChunked) release() {
	if c.h != nil {
		c.k.put(c.h)
		c.h = nil
	}
}

// frame sets pend to what comes before the next payload byte: the next
// chunk's header, or the last chunk and the trailer.
func (c *awsChunked) frame() {
	b := c.buf[:0]
	if c.sent < c.size {
		c.left = min(c.size-c.sent, awsChunkSize)
		b = strconv.AppendInt(b, c.left, 16)
		c.pend = append(b, '\r', '\n')
		return
	}
	c.value = sum(c.h)
	b = append(b, "0\r\n"...)
	b = append(b, c.k.trailer...)
	b = append(b, ':')
	b = append(b, c.value...)
	c.pend = append(b, "\r\n\r\n"...)
	c.done = true
}

func (c *awsChunked) Read(p []byte) (int, error) {
	for len(c.pend) == 0 {
		switch {
		case c.left > 0:
			n, err := c.src.Read(p[:min(int64(len(p)), c.left)])
			c.took(p[:n])
			if err == io.EOF && c.left > 0 {
				err = fmt.Errorf("s3: body ended after %d of %d bytes", c.sent, c.size)
			}
			if n > 0 || err != nil {
				return n, noEOF(err)
			}
		case c.done:
			return 0, io.EOF
		default:
			c.frame()
		}
	}
	n := copy(p, c.pend)
	c.pend = c.pend[n:]
	return n, nil
}

func noEOF(err error) error {
	if err == io.EOF {
		return nil
	}
	return err
}

// took accounts payload bytes passed on, and ends their chunk.
func (c *awsChunked) took(p []byte) {
	c.h.Write(p)
	c.sent += int64(len(p))
	c.left -= int64(len(p))
	if c.left == 0 && len(p) > 0 {
		c.pend = append(c.buf[:0], '\r', '\n')
	}
}

// WriteTo writes the framed body to w.
func (c *awsChunked) WriteTo(w io.Writer) (int64, error) {
	wt, ok := c.src.(io.WriterTo)
	if fresh := c.sent == 0 && c.left == 0 && len(c.pend) == 0 && !c.done; !ok || !fresh || isFile(c.src) {
		// Read serves what is left (all of it, or nothing once read to
		// the end: net/http reads past a body's length to check it).
		bp := c.bufs.Get().(*[]byte)
		defer c.bufs.Put(bp)
		return io.CopyBuffer(w, struct{ io.Reader }{c}, *bp)
	}
	f := &chunkFramer{c: c, w: w}
	n, err := wt.WriteTo(f)
	if err == nil && n != c.size {
		err = fmt.Errorf("s3: body holds %d bytes, not the %d to upload", n, c.size)
	}
	if err == nil {
		if len(c.pend) > 0 { // the last chunk's CRLF
			err = f.flush()
		}
		if err == nil {
			c.frame()
			err = f.flush()
		}
	}
	return f.n, err
}

// chunkFramer is what the source writes into: it frames the payload into
// chunks on the way to w.
type chunkFramer struct {
	c *awsChunked
	w io.Writer
	n int64
}

func (f *chunkFramer) flush() error {
	m, err := f.w.Write(f.c.pend)
	f.n += int64(m)
	f.c.pend = nil
	return err
}

func (f *chunkFramer) Write(p []byte) (int, error) {
	c, total := f.c, 0
	for len(p) > 0 {
		if c.left == 0 {
			if len(c.pend) > 0 { // the previous chunk's CRLF
				if err := f.flush(); err != nil {
					return total, err
				}
			}
			if c.sent >= c.size {
				return total, fmt.Errorf("s3: body holds more than the %d bytes to upload", c.size)
			}
			c.frame()
			if err := f.flush(); err != nil {
				return total, err
			}
		}
		n := int(min(int64(len(p)), c.left))
		m, err := f.w.Write(p[:n])
		f.n += int64(m)
		c.took(p[:m])
		total += m
		if err != nil {
			return total, err
		}
		p = p[n:]
	}
	return total, nil
}
