package s3server

import (
	"bufio"
	"bytes"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// aws-chunked is the body framing SDKs use for streaming signatures and
// trailing checksums:
//
//	<hex size>[;chunk-signature=<sig>]\r\n<data>\r\n ... 0[;chunk-signature=<sig>]\r\n[<trailer>\r\n...]\r\n
//
// frontDoor strips the framing from every request before it is served.
// With signed chunks (STREAMING-AWS4-HMAC-SHA256-PAYLOAD[-TRAILER]) each
// chunk is read whole and its signature checked before its bytes go on,
// and a signed trailer's signature is checked too. The trailers (a
// flexible checksum) are kept for the operation to check against the body.

// isAWSChunked reports whether r's body is aws-chunked: a streaming
// payload hash says so, or Content-Encoding with the decoded length. A
// Content-Encoding naming aws-chunked over a plain body (and no decoded
// length) is only dropped from the object's encoding, as S3 does.
func isAWSChunked(r *http.Request) bool {
	if strings.HasPrefix(r.Header.Get("X-Amz-Content-Sha256"), "STREAMING-") {
		return true
	}
	_, decoded := r.Header["X-Amz-Decoded-Content-Length"]
	return decoded && hasToken(r.Header.Get("Content-Encoding"), "aws-chunked")
}

// unwrapAWSChunked replaces r's body by the decoded payload and rewrites the
// headers so the request looks like a plain UNSIGNED-PAYLOAD upload of
// X-Amz-Decoded-Content-Length bytes.
func unwrapAWSChunked(r *http.Request, sig *signed) (*chunkedBody, error) {
	n, err := strconv.ParseInt(r.Header.Get("X-Amz-Decoded-Content-Length"), 10, 64)
	if err != nil || n < 0 {
		return nil, errorf(http.StatusLengthRequired, "MissingContentLength", "aws-chunked body without a valid X-Amz-Decoded-Content-Length header")
	}
	cb := &chunkedBody{br: bufio.NewReaderSize(r.Body, chunkLineMax), body: r.Body, sig: sig}
	if sig != nil {
		cb.prev = sig.signature
	}
	r.Body = cb
	r.ContentLength = n
	h := r.Header
	h.Set("Content-Length", strconv.FormatInt(n, 10))
	h.Set("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD")
	h.Del("X-Amz-Decoded-Content-Length")
	if ce := dropToken(h.Get("Content-Encoding"), "aws-chunked"); ce != "" {
		h.Set("Content-Encoding", ce)
	} else {
		h.Del("Content-Encoding")
	}
	return cb, nil
}

func hasToken(list, tok string) bool {
	for t := range strings.SplitSeq(list, ",") {
		if strings.EqualFold(strings.TrimSpace(t), tok) {
			return true
		}
	}
	return false
}

func dropToken(list, tok string) string {
	var keep []string
	for t := range strings.SplitSeq(list, ",") {
		if t = strings.TrimSpace(t); t != "" && !strings.EqualFold(t, tok) {
			keep = append(keep, t)
		}
	}
	return strings.Join(keep, ", ")
}

// chunkedBody decodes aws-chunked framing.
type chunkedBody struct {
	br   *bufio.Reader
	body io.Closer
	left int64 // bytes left in the current chunk
	err  error // sticky; io.EOF after the last chunk and its trailers
	// With signed chunks: the signing facts, the previous chunk's
	// signature, and the current chunk read whole and checked.
	sig   *signed
	prev  string
	chunk []byte
	// trailers are the trailing headers, once the body is read.
	trailers http.Header
}

// maxSignedChunk bounds a signed chunk, which is held whole to be checked.
const maxSignedChunk = 16 << 20

// chunkLineMax bounds a chunk header or trailer line (the read buffer).
const chunkLineMax = 32 << 10

func (c *chunkedBody) Close() error { return c.body.Close() }

func (c *chunkedBody) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if c.left == 0 && len(c.chunk) == 0 {
		if c.err = c.nextChunk(); c.err != nil {
			return 0, c.err
		}
	}
	if c.sig != nil {
		n := copy(p, c.chunk)
		c.chunk = c.chunk[n:]
		return n, nil
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.br.Read(p)
	c.left -= int64(n)
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	if err == nil && c.left == 0 {
		err = c.chunkEnd()
	}
	c.err = err
	return n, err
}

// nextChunk reads a chunk header; after the final zero-size chunk it reads
// the trailers and returns io.EOF.
func (c *chunkedBody) nextChunk() error {
	line, err := c.line()
	if err != nil {
		return err
	}
	sizeHex, ext, _ := strings.Cut(line, ";")
	size, err := strconv.ParseInt(strings.TrimSpace(sizeHex), 16, 64)
	if err != nil || size < 0 {
		return badChunk(fmt.Sprintf("bad chunk header %q", line))
	}
	if c.sig != nil {
		if err := c.readSigned(size, strings.TrimPrefix(strings.TrimSpace(ext), "chunk-signature=")); err != nil {
			return err
		}
		if size > 0 {
			return nil
		}
	} else if size > 0 {
		c.left = size
		return nil
	}
	c.trailers = http.Header{}
	var trailerSig string
	var signedPart strings.Builder
	for { // trailers, up to an empty line; some clients end the body without it
		line, err := c.line()
		if errors.Is(err, io.ErrUnexpectedEOF) || (err == nil && line == "") {
			break
		}
		if err != nil {
			return err
		}
		name, value, _ := strings.Cut(line, ":")
		name, value = strings.ToLower(strings.TrimSpace(name)), strings.TrimSpace(value)
		if name == "x-amz-trailer-signature" {
			trailerSig = value
			continue
		}
		c.trailers.Set(name, value)
		signedPart.WriteString(name + ":" + value + "\n")
	}
	if c.sig != nil && trailerSig != "" {
		want := c.sig.trailerSignature(c.prev, signedPart.String())
		if subtle.ConstantTimeCompare([]byte(want), []byte(trailerSig)) != 1 {
			return errorf(http.StatusForbidden, "SignatureDoesNotMatch", "aws-chunked body: the trailer's signature does not match")
		}
	}
	return io.EOF
}

func (c *chunkedBody) chunkEnd() error {
	var crlf [2]byte
	if _, err := io.ReadFull(c.br, crlf[:]); err != nil {
		return io.ErrUnexpectedEOF
	}
	if crlf != [2]byte{'\r', '\n'} {
		return badChunk("chunk data not followed by CRLF")
	}
	return nil
}

// badChunk is a 400 that says why.
func badChunk(msg string) error { return errInvalidArgument("aws-chunked body: " + msg) }

// line reads one CRLF-terminated line without it.
func (c *chunkedBody) line() (string, error) {
	b, err := c.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		return "", badChunk("chunk header line too long")
	}
	if err != nil {
		return "", io.ErrUnexpectedEOF
	}
	return string(bytes.TrimRight(b, "\r\n")), nil
}

// readSigned reads a signed chunk of size bytes whole (and its CRLF) and
// checks its signature against the chain before any of it goes on.
func (c *chunkedBody) readSigned(size int64, sig string) error {
	if size > maxSignedChunk {
		return badChunk(fmt.Sprintf("signed chunk of %d bytes: at most %d are taken", size, maxSignedChunk))
	}
	c.chunk = make([]byte, size)
	if _, err := io.ReadFull(c.br, c.chunk); err != nil {
		return io.ErrUnexpectedEOF
	}
	if size > 0 {
		if err := c.chunkEnd(); err != nil {
			return err
		}
	}
	want := c.sig.chunkSignature(c.prev, c.chunk)
	if subtle.ConstantTimeCompare([]byte(want), []byte(sig)) != 1 {
		return errorf(http.StatusForbidden, "SignatureDoesNotMatch", "aws-chunked body: a chunk's signature does not match")
	}
	c.prev = sig
	return nil
}
