package resultpack

import (
	"bytes"
	"encoding/base64"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"
)

// packedLatencies is latencySeconds(n, seed) packed.
func packedLatencies(t *testing.T, n int, seed uint64) []byte {
	t.Helper()
	var p Packer
	defer p.Close()
	blob, err := p.Pack(latencySeconds(n, seed))
	if err != nil {
		t.Fatal(err)
	}
	return blob
}

// latencySeconds is n seconds of one GET op, each with a packed latency
// histogram of 1,000 lognormal latencies drawn afresh (as a worker's).
func latencySeconds(n int, seed uint64) []Second {
	rng := rand.New(rand.NewPCG(seed, 7))
	secs := make([]Second, n)
	for t := range secs {
		h := NewHistogram()
		for range 1000 {
			_ = h.RecordValue(int64(math.Exp(rng.NormFloat64()*0.6 + math.Log(800))))
		}
		secs[t] = Second{T: int64(t), Ops: []OpSecond{{Op: "GET", Ops: 1000, Bytes: 4096000, Hists: [3]string{PackHistogram(h)}}}}
	}
	return secs
}

// frameCodecs is the codec of each frame of a packed blob.
func frameCodecs(t *testing.T, blob []byte) []byte {
	t.Helper()
	ps, err := Open(blob)
	if err != nil {
		t.Fatal(err)
	}
	var codecs []byte
	for _, f := range ps.frames {
		codecs = append(codecs, f.codec)
	}
	return codecs
}

// Seconds of latencies drawn afresh pack with huff0; seconds that repeat
// exactly, with zstd (when not more than maxRatio times: stored); both read back to what was packed, and as one
// version 1 blob (zstd frames) still does.
func TestFrameCodecs(t *testing.T) {
	busy := latencySeconds(600, 1)
	same := latencySeconds(16, 2) // 16 seconds over and over
	for t := 16; t < 1200; t++ {
		same = append(same, Second{T: int64(t), Ops: same[t%16].Ops})
	}
	var p Packer
	defer p.Close()
	dec := NewDecoder()
	defer dec.Close()
	for _, c := range []struct {
		name  string
		secs  []Second
		codec byte
	}{{"fresh latencies", busy, codecHuff0}, {"16 seconds repeated", same, codecZstd}} {
		blob, err := p.Pack(c.secs)
		if err != nil {
			t.Fatal(err)
		}
		codecs := frameCodecs(t, blob)
		if len(codecs) < 2 || !bytes.Equal(codecs, bytes.Repeat([]byte{c.codec}, len(codecs))) {
			t.Errorf("%s: frames coded %v, want each %d", c.name, codecs, c.codec)
		}
		back, err := Unpack(blob, dec)
		if err != nil || !reflect.DeepEqual(back, c.secs) {
			t.Fatalf("%s: read back %d seconds, %v", c.name, len(back), err)
		}
	}
	doc, err := os.ReadFile("../../result/testdata/v5.json")
	if err != nil {
		t.Fatal(err)
	}
	_, texts, _ := Cut(doc)
	blob, err := packedBlob("#0", texts)
	if err != nil || blob[0] != 1 {
		t.Fatalf("v5.json: %v", err)
	}
	if _, err := Unpack(blob, dec); err != nil {
		t.Fatalf("a version 1 blob: %v", err)
	}
}

// A huff0 frame whose blocks are cut short, run long or lie about their
// lengths is refused, never read past.
func TestHuff0FrameCorrupt(t *testing.T) {
	blob := packedLatencies(t, 200, 3)
	ps, err := Open(blob)
	if err != nil || ps.frames[0].codec != codecHuff0 {
		t.Fatalf("%v, codec %d", err, ps.frames[0].codec)
	}
	f := ps.frames[0]
	dec := NewDecoder()
	defer dec.Close()
	if raw, err := dec.decode(f, nil); err != nil || len(raw) != f.rawLen {
		t.Fatalf("the frame itself: %d bytes, %v", len(raw), err)
	}
	cases := map[string]frameRef{
		"cut short":       {rawLen: f.rawLen, codec: codecHuff0, data: f.data[:len(f.data)/2]},
		"a byte too many": {rawLen: f.rawLen, codec: codecHuff0, data: append(bytes.Clone(f.data), 0)},
		"raw length +1":   {rawLen: f.rawLen + 1, codec: codecHuff0, data: f.data},
		"raw length -1":   {rawLen: f.rawLen - 1, codec: codecHuff0, data: f.data},
		"empty":           {rawLen: f.rawLen, codec: codecHuff0},
	}
	flipped := bytes.Clone(f.data)
	flipped[len(flipped)/3] ^= 0x5a
	cases["a byte flipped"] = frameRef{rawLen: f.rawLen, codec: codecHuff0, data: flipped}
	for name, bad := range cases {
		if raw, err := dec.decode(bad, nil); err == nil {
			t.Errorf("%s: read %d bytes, no error", name, len(raw))
		}
	}
}

// A merge reads each frame of a file again when it gets to it: a file
// that changed meanwhile (cut short, or other bytes) is an error naming
// it, never a panic or other numbers.
func TestLazyFramesOfAChangedFile(t *testing.T) {
	blob := packedLatencies(t, 300, 4)
	doc := []byte(`{"x": "` + base64.StdEncoding.EncodeToString(blob) + `"}`)
	textOff, textLen := int64(7), len(doc)-9
	ps, err := Open(blob)
	if err != nil || len(ps.frames) < 2 {
		t.Fatalf("%d frames, %v", len(ps.frames), err)
	}
	dec := NewDecoder()
	defer dec.Close()
	read := func(file []byte) func([]byte, int64) (int, error) {
		return func(b []byte, off int64) (int, error) { return bytes.NewReader(file).ReadAt(b, off) }
	}
	for _, f := range ps.frames { // the file as it was: each frame's bytes
		l := &Lazy{Name: "w.json", ReadAt: read(doc), TextOff: textOff, TextLen: textLen}
		got, err := l.fetch(f.off, f.size, dec)
		if err != nil || !bytes.Equal(got, f.data) {
			t.Fatalf("frame at %d: %v", f.off, err)
		}
	}
	last := ps.frames[len(ps.frames)-1]
	cut := doc[:len(doc)-200]
	changed := bytes.Clone(doc)
	changed[textOff+int64(last.off*4/3)+40] = '!'
	for name, file := range map[string][]byte{"cut short": cut, "a character changed": changed} {
		l := &Lazy{Name: "w.json", ReadAt: read(file), TextOff: textOff, TextLen: textLen}
		_, err := l.fetch(last.off, last.size, dec)
		if err == nil || !strings.Contains(err.Error(), "w.json") {
			t.Errorf("%s: %v, want an error naming the file", name, err)
		}
	}
}

// BenchmarkEncodeBase64 is the base64 of a merged file's packed seconds
// as Encode writes it, against encoding/base64's encoder.
func BenchmarkEncodeBase64(b *testing.B) {
	blob := make([]byte, 8<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range blob {
		blob[i] = byte(rng.Uint32())
	}
	b.Run("asm", func(b *testing.B) {
		b.SetBytes(int64(len(blob)))
		var text []byte
		for range b.N {
			text = EncodeBase64(io.Discard, blob, text)
		}
	})
	b.Run("std", func(b *testing.B) {
		b.SetBytes(int64(len(blob)))
		for range b.N {
			e := base64.NewEncoder(base64.StdEncoding, io.Discard)
			_, _ = e.Write(blob)
			_ = e.Close()
		}
	})
}
