package s3

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// directBody hands the connection back to the pool once the body has been
// read to its end, or closes it if the body is abandoned part-way.
type directBody struct {
	ctx   context.Context
	rc    io.ReadCloser
	t     *directTransport
	c     *directConn
	keep  bool
	empty bool
	done  bool
}

func (b *directBody) Read(p []byte) (int, error) {
	if b.done {
		return 0, io.EOF
	}
	n, err := b.rc.Read(p)
	if err == io.EOF {
		b.finish(true)
	} else if err != nil {
		b.finish(false)
		if cerr := b.ctx.Err(); cerr != nil {
			err = cerr // the deadline the read hit is the context's doing
		}
	}
	return n, err
}

func (b *directBody) Close() error {
	if !b.done {
		b.finish(b.empty)
	}
	return nil
}

// discardable reports whether resp's body may be skipped in the
// connection's read buffer (directBody.discard): a small body of known
// length, not yet read. Larger bodies go through a copy buffer, which
// moves them in fewer, larger reads.
func discardable(resp *http.Response) bool {
	return resp.ContentLength > 0 && resp.ContentLength <= smallBufSize && resp.TransferEncoding == nil &&
		resp.StatusCode != http.StatusNoContent && resp.StatusCode != http.StatusNotModified
}

// discard skips the body's n bytes (all of it, none read yet) in the
// connection's read buffer and releases the connection. No copy buffer
// is taken: with thousands of workers, a read that waits for the body's
// end (the server wrote it in two pieces) or for a core (the client
// deschedules a goroutine returning from a syscall) held one per worker
// at once, 55 MB of 8 KiB buffers at 10,000 workers.
func (b *directBody) discard(n int64) (int64, error) {
	br := b.c.br
	if b.done || br == nil {
		return 0, io.ErrUnexpectedEOF
	}
	m, err := br.Discard(int(n))
	if err != nil {
		b.finish(false)
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return int64(m), err
	}
	b.finish(true)
	return int64(m), nil
}

// finish releases the connection: back to the pool when the body ended
// cleanly and both sides keep the connection alive, else closed.
func (b *directBody) finish(clean bool) {
	b.done = true
	if b.c.watchFired() { // the context ended: the exchange may have been cut
		clean = false
	}
	c := b.c
	if c.br != nil && c.br.Buffered() > 0 {
		clean = false // bytes past the response: the connection cannot be trusted
	}
	if c.br != nil {
		putReader(c.br)
		c.br = nil
	}
	if clean && b.keep {
		if err := c.nc.SetDeadline(time.Time{}); err == nil {
			b.t.put(c)
			return
		}
	}
	b.t.discard(c)
}

// writeRequest writes req as HTTP/1.1 and flushes. The body goes through
// its WriterTo when it has one (the payload generator does), straight into
// body (w, or a writer that sends from files after flushing w:
// directConn.bodyWriter): no intermediate copy buffer per request, which
// net/http's request writer allocates.
func writeRequest(w *bufio.Writer, body io.Writer, req *http.Request) error {
	w.WriteString(req.Method)
	w.WriteByte(' ')
	w.WriteString(req.URL.EscapedPath())
	if req.URL.RawQuery != "" {
		w.WriteByte('?')
		w.WriteString(req.URL.RawQuery)
	}
	w.WriteString(" HTTP/1.1\r\nHost: ")
	if req.Host != "" {
		w.WriteString(req.Host)
	} else {
		w.WriteString(req.URL.Host)
	}
	w.WriteString("\r\nUser-Agent: objbench\r\n")
	if req.Close {
		w.WriteString("Connection: close\r\n")
	}
	for k, vs := range req.Header {
		for _, v := range vs {
			w.WriteString(k)
			w.WriteString(": ")
			w.WriteString(v)
			w.WriteString("\r\n")
		}
	}
	hasBody := req.Body != nil && req.Body != http.NoBody
	if hasBody || req.ContentLength > 0 || req.Method == http.MethodPut || req.Method == http.MethodPost {
		var nb [20]byte
		w.WriteString("Content-Length: ")
		w.Write(strconv.AppendInt(nb[:0], req.ContentLength, 10))
		w.WriteString("\r\n")
	}
	w.WriteString("\r\n")
	if hasBody {
		var n int64
		var err error
		if wt, ok := req.Body.(io.WriterTo); ok { // a LimitReader would hide it
			n, err = wt.WriteTo(body)
		} else {
			n, err = io.CopyN(w, req.Body, req.ContentLength)
		}
		if err != nil {
			return err
		}
		if n != req.ContentLength {
			return fmt.Errorf("s3: request body ended after %d of %d bytes", n, req.ContentLength)
		}
	}
	return w.Flush()
}
