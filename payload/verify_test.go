package payload_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/objbench/objbench/payload"
)

func TestVerifierAcceptsWhatReaderWroteAndFindsTheFirstBadByte(t *testing.T) {
	b, err := payload.NewBlock(1<<16, 7, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := payload.NewReader(b)
	whole := func(seed uint64, size int64) []byte {
		r.Reset(seed, size)
		out, _ := io.ReadAll(r)
		return out
	}
	for _, c := range []struct {
		name         string
		seed         uint64
		size, off    int64
		corruptAt    int64 // -1: none
		wantMismatch int64
	}{
		{"whole object", 3, 5000, 0, -1, -1},
		{"wraps the block", 11, 3<<16 + 5, 0, -1, -1},
		{"a range", 5, 1 << 17, 70000, -1, -1},
		{"one flipped byte", 9, 4096, 0, 1234, 1234},
		{"flipped byte in a range", 9, 1 << 17, 65530, 65540 - 65530, 10},
		{"empty", 1, 0, 0, -1, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := whole(c.seed, c.size)[c.off:]
			got = bytes.Clone(got)
			if c.corruptAt >= 0 {
				got[c.corruptAt] ^= 0xff
			}
			v := payload.NewVerifier(b)
			v.Reset(c.seed, c.off)
			for chunk := got; len(chunk) > 0; { // odd chunk sizes, as a network read gives
				k := min(len(chunk), 777)
				if n, err := v.Write(chunk[:k]); n != k || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
				chunk = chunk[k:]
			}
			if v.Mismatch() != c.wantMismatch || v.Checked() != int64(len(got)) {
				t.Errorf("mismatch at %d after %d bytes; want %d after %d", v.Mismatch(), v.Checked(), c.wantMismatch, len(got))
			}
		})
	}
}

func TestPartsMatchTheWholeObject(t *testing.T) {
	b, _ := payload.NewBlock(1<<16, 2, 0)
	r := payload.NewReader(b)
	r.Reset(42, 200000)
	whole, _ := io.ReadAll(r)
	var parts []byte
	for off := int64(0); off < 200000; off += 70000 {
		r.ResetAt(42, off, min(70000, 200000-off))
		p, _ := io.ReadAll(r)
		parts = append(parts, p...)
	}
	if !bytes.Equal(whole, parts) {
		t.Fatal("parts written with ResetAt differ from the whole object")
	}
}
