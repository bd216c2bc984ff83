package payload_test

import (
	"bytes"
	"compress/flate"
	"io"
	"testing"

	"github.com/objbench/objbench/payload"
)

func TestReaderProducesExactSizes(t *testing.T) {
	b, err := payload.NewBlock(1<<16, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := payload.NewReader(b)
	for _, size := range []int64{0, 1, 4095, 1 << 16, 3<<16 + 7} {
		r.Reset(uint64(size), size)
		var viaRead bytes.Buffer
		if _, err := io.Copy(&viaRead, io.LimitReader(r, size+10)); err != nil { // LimitReader hides WriteTo
			t.Fatal(err)
		}
		r.Reset(uint64(size), size)
		var viaWriteTo bytes.Buffer
		if _, err := io.Copy(&viaWriteTo, r); err != nil {
			t.Fatal(err)
		}
		if int64(viaRead.Len()) != size || !bytes.Equal(viaRead.Bytes(), viaWriteTo.Bytes()) {
			t.Fatalf("size %d: Read gave %d bytes, WriteTo %d, equal=%v", size, viaRead.Len(), viaWriteTo.Len(), bytes.Equal(viaRead.Bytes(), viaWriteTo.Bytes()))
		}
	}
}

func TestObjectsDifferBySeed(t *testing.T) {
	b, _ := payload.NewBlock(1<<16, 1, 0)
	r := payload.NewReader(b)
	read := func(seed uint64) []byte {
		r.Reset(seed, 4096)
		out, _ := io.ReadAll(r)
		return out
	}
	if bytes.Equal(read(1), read(2)) {
		t.Fatal("objects with different seeds carry the same bytes")
	}
}

func compressedRatio(t *testing.T, ratio float64) float64 {
	t.Helper()
	b, err := payload.NewBlock(1<<20, 7, ratio)
	if err != nil {
		t.Fatal(err)
	}
	r := payload.NewReader(b)
	r.Reset(0, 1<<20)
	var out bytes.Buffer
	w, _ := flate.NewWriter(&out, flate.DefaultCompression)
	if _, err := io.Copy(w, r); err != nil {
		t.Fatal(err)
	}
	w.Close()
	return float64(1<<20) / float64(out.Len())
}

func TestCompressibility(t *testing.T) {
	if got := compressedRatio(t, 0); got > 1.01 {
		t.Errorf("default payload compressed %.2fx; want incompressible", got)
	}
	if got := compressedRatio(t, 4); got < 3 || got > 5 {
		t.Errorf("ratio 4 payload compressed %.2fx; want about 4x", got)
	}
}

func BenchmarkReaderWriteTo(b *testing.B) {
	blk, _ := payload.NewBlock(payload.DefaultBlockSize, 1, 0)
	r := payload.NewReader(blk)
	b.SetBytes(4 << 20)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.Reset(uint64(i), 4<<20)
		if _, err := r.WriteTo(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

func TestSeekReplaysTheSameBytes(t *testing.T) {
	b, _ := payload.NewBlock(1<<16, 3, 0)
	r := payload.NewReader(b)
	r.ResetAt(9, 100, 70_000) // wraps around the block once
	first, _ := io.ReadAll(r)
	if pos, err := r.Seek(0, io.SeekStart); err != nil || pos != 0 {
		t.Fatalf("Seek = %d, %v", pos, err)
	}
	again, _ := io.ReadAll(r)
	if !bytes.Equal(first, again) || len(again) != 70_000 {
		t.Fatalf("replay differs (%d vs %d bytes)", len(first), len(again))
	}
	if _, err := r.Seek(70_001, io.SeekStart); err == nil {
		t.Error("seek past the end accepted")
	}
	r.Seek(69_990, io.SeekStart)
	if tail, _ := io.ReadAll(r); !bytes.Equal(tail, first[69_990:]) {
		t.Error("seek into the middle reads different bytes")
	}
}
