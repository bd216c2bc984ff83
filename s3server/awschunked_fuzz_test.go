package s3server

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"
)

// fuzzSigned is a fixed signing context for signed-chunk bodies.
var fuzzSigned = signed{key: hmacSHA256([]byte("AWS4fuzz-secret"), "20260101"), date: "20260101T000000Z",
	scope: "20260101/us-east-1/s3/aws4_request", signature: "5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed"}

// encodeChunked frames data as aws-chunked: signed chunks with their real
// chained signatures, or unsigned ones ending in a trailer.
func encodeChunked(data []byte, chunk int, sig *signed) []byte {
	var b bytes.Buffer
	prev := ""
	if sig != nil {
		prev = sig.signature
	}
	write := func(p []byte) {
		fmt.Fprintf(&b, "%x", len(p))
		if sig != nil {
			prev = sig.chunkSignature(prev, p)
			b.WriteString(";chunk-signature=" + prev)
		}
		b.WriteString("\r\n")
		if len(p) > 0 {
			b.Write(p)
			b.WriteString("\r\n")
		}
	}
	for len(data) > 0 {
		n := min(chunk, len(data))
		write(data[:n])
		data = data[n:]
	}
	write(nil)
	if sig == nil {
		b.WriteString("x-amz-checksum-crc32:AAAAAA==\r\n")
	}
	b.WriteString("\r\n")
	return b.Bytes()
}

// decodeChunked reads body through chunkedBody, in reads of step bytes.
func decodeChunked(body []byte, sig *signed, step int) ([]byte, error) {
	cb := &chunkedBody{br: bufio.NewReaderSize(bytes.NewReader(body), chunkLineMax), body: io.NopCloser(nil), sig: sig}
	if sig != nil {
		cb.prev = sig.signature
	}
	var out []byte
	buf := make([]byte, step)
	for range len(body) + 16 { // every read moves on by a byte or ends it
		n, err := cb.Read(buf)
		out = append(out, buf[:n]...)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return out, err
		}
	}
	return out, errors.New("decoder did not finish")
}

// The aws-chunked decoder, on any body: it never panics or spins, never
// gives more bytes than the body holds; a body framed right decodes to
// exactly its payload; and with signed chunks nothing but the signed
// payload's bytes ever comes out, whatever was changed in the body (a
// forged chunk is refused before any of it goes on).
func FuzzChunkedBody(f *testing.F) {
	f.Add([]byte("hello, chunked world"), uint16(4), uint8(0), uint16(0), byte(0), uint8(3))
	f.Add([]byte("signed payload bytes"), uint16(7), uint8(1), uint16(10), byte(1), uint8(5))
	f.Add([]byte{}, uint16(1), uint8(1), uint16(0), byte(0), uint8(1))
	f.Add([]byte("zz\r\nhello"), uint16(3), uint8(2), uint16(0), byte(0), uint8(2))
	f.Add([]byte("5;chunk-signature=00\r\nhello\r\n0\r\n\r\n"), uint16(3), uint8(3), uint16(0), byte(0), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint16, mode uint8, at uint16, flip byte, step uint8) {
		if chunk == 0 || step == 0 {
			return
		}
		var sig *signed
		if mode%2 == 1 {
			sig = &fuzzSigned
		}
		body := encodeChunked(data, int(chunk), sig)
		if mode%4 >= 2 { // the fuzzer's bytes as the body
			body = data
		}
		if flip != 0 && len(body) > 0 {
			body = bytes.Clone(body)
			body[int(at)%len(body)] ^= flip
		}
		out, err := decodeChunked(body, sig, int(step))
		if err != nil && err.Error() == "decoder did not finish" {
			t.Fatalf("decoder spun on %q", body)
		}
		if len(out) > len(body) {
			t.Fatalf("%d bytes out of a body of %d", len(out), len(body))
		}
		switch {
		case mode%4 < 2 && flip == 0:
			if err != nil || !bytes.Equal(out, data) {
				t.Fatalf("a well-framed body of %d bytes decoded to %d bytes, err %v", len(data), len(out), err)
			}
		case sig != nil && !bytes.HasPrefix(data, out) && mode%4 < 2:
			t.Fatalf("signed chunks gave bytes that were never signed: %q (payload %q), err %v", out, data, err)
		case sig != nil && mode%4 >= 2 && len(out) > 0:
			t.Fatalf("signed chunks of the fuzzer's own bytes passed: %q", out)
		}
	})
}
