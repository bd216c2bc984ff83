package payload_test

import (
	"bytes"
	"compress/flate"
	"io"
	"testing"

	"github.com/objbench/objbench/payload"
)

// TestLettersRepeatOnePiecePerObject: an object of a letters block is one
// 4 KiB piece of random lower-case letters repeated, as COSBench writes;
// it compresses; parts, seeks and the verifier agree with the whole.
func TestLettersRepeatOnePiecePerObject(t *testing.T) {
	b, err := payload.NewLettersBlock(1<<20, 7)
	if err != nil {
		t.Fatal(err)
	}
	r := payload.NewReader(b)
	object := func(seed uint64, size int64) []byte {
		r.Reset(seed, size)
		var buf bytes.Buffer
		if _, err := io.Copy(&buf, io.LimitReader(r, size)); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	const size = 3*payload.LettersPeriod + 100
	a := object(11, size)
	if len(a) != size {
		t.Fatalf("%d bytes", len(a))
	}
	for i, c := range a {
		if c < 'a' || c > 'z' || (i >= payload.LettersPeriod && c != a[i-payload.LettersPeriod]) {
			t.Fatalf("byte %d is %q: not a letter repeating every %d bytes", i, c, payload.LettersPeriod)
		}
	}
	if other := object(12, size); bytes.Equal(other[:payload.LettersPeriod], a[:payload.LettersPeriod]) {
		t.Error("two objects repeat the same piece")
	}
	var z bytes.Buffer
	w, _ := flate.NewWriter(&z, flate.DefaultCompression)
	big := object(11, 1<<20)
	_, _ = w.Write(big)
	w.Close()
	if z.Len() > len(big)/20 {
		t.Errorf("1 MiB of letters deflates to %d bytes; COSBench's data compresses", z.Len())
	}
	// a part from offset 5000 on, and a seek, give the same bytes
	r.ResetAt(11, 5000, 3000)
	part, _ := io.ReadAll(r)
	if !bytes.Equal(part, a[5000:8000]) {
		t.Error("a part differs from the whole object's bytes")
	}
	r.Reset(11, size)
	if _, err := r.Seek(9000, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(r)
	if !bytes.Equal(rest, a[9000:]) {
		t.Error("after a seek the bytes differ")
	}
	v := payload.NewVerifier(b)
	v.Reset(11, 0)
	_, _ = v.Write(a)
	if v.Mismatch() != -1 || v.Checked() != size {
		t.Errorf("verifier: mismatch at %d of %d checked", v.Mismatch(), v.Checked())
	}
	a[5000] ^= 1
	v.Reset(11, 0)
	_, _ = v.Write(a)
	if v.Mismatch() != 5000 {
		t.Errorf("a changed byte 5000 found at %d", v.Mismatch())
	}
}
