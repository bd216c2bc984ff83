package s3

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/objbench/objbench/storage"
)

// decodeAWSChunked is the reference reading of the framing: the payload,
// the trailer line, and an error for anything malformed.
func decodeAWSChunked(t *testing.T, enc []byte) (payload []byte, trailer string) {
	t.Helper()
	r := bufio.NewReader(bytes.NewReader(enc))
	for {
		line, err := r.ReadString('\n')
		if err != nil || !strings.HasSuffix(line, "\r\n") {
			t.Fatalf("chunk header %q: %v", line, err)
		}
		n, err := strconv.ParseInt(strings.TrimSuffix(line, "\r\n"), 16, 64)
		if err != nil || n < 0 || n > awsChunkSize {
			t.Fatalf("chunk size %q", line)
		}
		if n == 0 {
			break
		}
		chunk := make([]byte, n+2)
		if _, err := io.ReadFull(r, chunk); err != nil || !bytes.HasSuffix(chunk, []byte("\r\n")) {
			t.Fatalf("chunk of %d: %v", n, err)
		}
		payload = append(payload, chunk[:n]...)
	}
	rest, _ := io.ReadAll(r)
	if !bytes.HasSuffix(rest, []byte("\r\n\r\n")) || bytes.Count(rest, []byte("\r\n")) != 2 {
		t.Fatalf("trailer %q", rest)
	}
	return payload, string(rest[:len(rest)-4])
}

// Any payload, framed through WriteTo (a WriterTo source) or Read, is
// exactly encodedLen bytes that decode to the payload and a trailer
// carrying its checksum.
func FuzzAWSChunked(f *testing.F) {
	f.Add([]byte("hello"), uint16(0))
	f.Add([]byte{}, uint16(0))
	f.Add([]byte("x"), uint16(3))
	cs := newChecksums()
	pool := &sync.Pool{New: func() any { b := make([]byte, 1000); return &b }}
	f.Fuzz(func(t *testing.T, seed []byte, repeat uint16) {
		data := bytes.Repeat(seed, int(repeat%300)+1) // up to a few chunks from a short input
		for _, a := range []storage.Checksum{storage.ChecksumCRC32, storage.ChecksumCRC64NVME, storage.ChecksumSHA256} {
			k, _ := cs.kind(a)
			h := k.get()
			h.Write(data)
			want := k.trailer + ":" + sum(h)
			for _, viaRead := range []bool{false, true} {
				var src io.Reader = bytes.NewReader(data)
				if viaRead {
					src = struct{ io.Reader }{src}
				}
				c := newAWSChunked(src, int64(len(data)), k, pool)
				var out bytes.Buffer
				var err error
				if viaRead {
					_, err = io.CopyBuffer(&out, struct{ io.Reader }{c}, make([]byte, 777))
				} else {
					_, err = c.WriteTo(&out)
				}
				if err != nil {
					t.Fatal(err)
				}
				if int64(out.Len()) != c.encodedLen() {
					t.Fatalf("%s read=%v: %d bytes framed, encodedLen says %d", a, viaRead, out.Len(), c.encodedLen())
				}
				got, trailer := decodeAWSChunked(t, out.Bytes())
				if !bytes.Equal(got, data) || trailer != want || c.value != sum(h) {
					t.Fatalf("%s read=%v: payload equal %v, trailer %q want %q", a, viaRead, bytes.Equal(got, data), trailer, want)
				}
				c.release()
			}
			k.put(h)
		}
	})
}
