package loadgen

import (
	"bytes"
	"crypto/md5"
	"fmt"
	"io"
	"testing"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/payload"
)

// cosbenchTrailer is the trailer COSBench appends to data, written here
// from its source, not from objbench's code: "!!!!", the MD5 of the data
// as %032x of a positive BigInteger (lower-case hex, 32 digits), "!!!!"
// (dev/cosbench-driver/src/com/intel/cosbench/driver/util/HashUtil.java,
// calculateHash).
func cosbenchTrailer(data []byte) []byte {
	return fmt.Appendf(nil, "!!!!%032x!!!!", md5.Sum(data))
}

// A PUT body with hashCheck is the payload less 40 bytes, then the
// trailer of those bytes, however it is read: in one go, in small reads,
// through WriteTo, and again after a seek (a replayed request). Objects
// of 40 bytes or less carry none (RandomInputStream.java turns hashCheck
// off for them).
func TestHashedBodyIsCOSBenchs(t *testing.T) {
	blk, err := payload.NewLettersBlock(1<<20, 7)
	if err != nil {
		t.Fatal(err)
	}
	s := &streamRun{work: streamWork{hashCheck: true}}
	w := &worker{s: s, body: payload.NewReader(blk)}
	for _, size := range []int64{40, 41, 1000, 4096 + 40, 70_000} {
		task := task{op: metrics.OpPut, key: "k", seed: 99, size: size}
		if size <= 40 {
			if w.hashes(task) {
				t.Errorf("%d bytes: a trailer, where COSBench writes none", size)
			}
			continue
		}
		b, err := w.hashedBody(task)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := io.ReadAll(b)
		if err != nil {
			t.Fatal(err)
		}
		data := whole[:size-40]
		for _, c := range data {
			if c < 'a' || c > 'z' {
				t.Fatalf("%d bytes: data byte %q is not a letter", size, c)
			}
		}
		if int64(len(whole)) != size || !bytes.Equal(whole[size-40:], cosbenchTrailer(data)) {
			t.Fatalf("%d bytes: got %d bytes ending %q; want %q", size, len(whole), whole[max(0, len(whole)-40):], cosbenchTrailer(data))
		}
		for _, at := range []int64{0, 3, size - 41, size - 40, size - 17, size} {
			if _, err := b.Seek(at, io.SeekStart); err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if _, err := b.WriteTo(&got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), whole[at:]) {
				t.Errorf("%d bytes, replayed from %d: %d bytes that differ", size, at, got.Len())
			}
		}
		if _, err := b.Seek(0, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		small, err := io.ReadAll(io.LimitReader(onebyte{b}, size+1))
		if err != nil || !bytes.Equal(small, whole) {
			t.Errorf("%d bytes read a byte at a time differ (%v)", size, err)
		}
	}
}

type onebyte struct{ r io.Reader }

func (o onebyte) Read(p []byte) (int, error) { return o.r.Read(p[:min(1, len(p))]) }

// A read with hashCheck judges an object as COSBench's Reader does
// (operator/Reader.java, validateChecksum): the MD5 of all but the last
// 40 bytes against those 40; a difference fails the read only when the
// stored part starts with the guard "!!!!" (else: "No checksum embedded",
// and the read counts); 40 bytes or less are not checked. Fed in any
// pieces.
func TestTrailerCheckIsCOSBenchs(t *testing.T) {
	data := bytes.Repeat([]byte("qwertyuiop"), 1000)
	good := append(append([]byte{}, data...), cosbenchTrailer(data)...)
	bad := append([]byte{}, good...)
	bad[17] ^= 1
	lying := append(append([]byte{}, data...), "!!!!00000000000000000000000000000000!!!!"...)
	for _, c := range []struct {
		name string
		obj  []byte
		want int
	}{
		{"trailer", good, trailerOK},
		{"changed data", bad, trailerBad},
		{"wrong hash", lying, trailerBad},
		{"no trailer", data, trailerMissing},
		{"40 bytes", data[:40], trailerOK},
		{"41 bytes of a trailer's guard", append([]byte("x"), cosbenchTrailer(nil)...), trailerBad},
		{"a trailer of nothing", append([]byte("x"), cosbenchTrailer([]byte("x"))...), trailerOK},
	} {
		for _, piece := range []int{1, 7, 39, 40, 41, 4096, len(c.obj) + 1} {
			var tc trailerCheck
			tc.reset()
			for rest := c.obj; len(rest) > 0; {
				n := min(piece, len(rest))
				tc.Write(rest[:n])
				rest = rest[n:]
			}
			if got := tc.verdict(); got != c.want {
				t.Errorf("%s in pieces of %d: verdict %d, want %d", c.name, piece, got, c.want)
			}
		}
	}
}
