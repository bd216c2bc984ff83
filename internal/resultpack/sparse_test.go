package resultpack

import (
	"math/rand/v2"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// randomHist records n values spread over the whole geometry, both ends
// included, so every bucket size is exercised.
func randomHist(rng *rand.Rand, n int) *hdr.Histogram {
	h := NewHistogram()
	_ = h.RecordValue(Lowest)
	_ = h.RecordValue(Highest)
	for range n {
		v := int64(1) << rng.IntN(32)
		_ = h.RecordValues(v+rng.Int64N(v), 1+rng.Int64N(3))
	}
	return h
}

// encodeV2 is h as hdrhistogram-go encodes it (V2 compressed, base64):
// what result.EncodeHistogram writes.
func encodeV2(h *hdr.Histogram) string {
	b, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// The codec reads what the library writes, and the library reads what the
// codec writes, to the same counts.
func TestSparseCodecAgreesWithTheLibrary(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var c Codec
	for i := range 200 {
		h := randomHist(rng, rng.IntN(3000))
		var s sparseHist
		if err := c.decode(encodeV2(h), &s); err != nil {
			t.Fatalf("case %d: the codec refuses the library's encoding: %v", i, err)
		}
		back := NewHistogram()
		if err := s.into(back); err != nil {
			t.Fatal(err)
		}
		if !back.Equals(h) {
			t.Fatalf("case %d: decoded %d values, p50 %d max %d; the library's histogram has %d, p50 %d max %d", i,
				back.TotalCount(), back.ValueAtQuantile(50), back.Max(), h.TotalCount(), h.ValueAtQuantile(50), h.Max())
		}
		lib, err := hdr.Decode([]byte(c.encode(&s)))
		if err != nil {
			t.Fatalf("case %d: the library refuses the codec's encoding: %v", i, err)
		}
		if !lib.Equals(h) {
			t.Fatalf("case %d: the codec's encoding decodes to %d values, want %d", i, lib.TotalCount(), h.TotalCount())
		}
	}
}

// Sum is the library's Merge of the same histograms.
func TestSparseSumIsTheLibrarysMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var c Codec
	for i := range 50 {
		want := NewHistogram()
		var encs []string
		for range 1 + rng.IntN(20) {
			h := randomHist(rng, rng.IntN(500))
			want.Merge(h)
			encs = append(encs, encodeV2(h))
		}
		got, err := c.Sum(encs)
		if err != nil {
			t.Fatal(err)
		}
		h, err := hdr.Decode([]byte(got))
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if !h.Equals(want) {
			t.Fatalf("case %d: sum holds %d values, merge %d", i, h.TotalCount(), want.TotalCount())
		}
	}
	for _, d := range c.dense {
		if d != 0 {
			t.Fatal("sum left its accumulator dirty")
		}
	}
}

// Another geometry is refused before anything is allocated for it.
func TestSparseRefusesAnotherGeometry(t *testing.T) {
	h := hdr.New(1, 1<<40, 4)
	_ = h.RecordValue(42)
	b, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	var c Codec
	var s sparseHist
	if err := c.decode(string(b), &s); err == nil {
		t.Fatal("a 4-digit histogram decoded as objbench's geometry")
	}
}

// Whatever the codec accepts, it writes back to the same counts, and the
// library reads that too.
func FuzzSparseDecode(f *testing.F) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 4 {
		f.Add(encodeV2(randomHist(rng, 100)))
	}
	f.Add("")
	f.Add("HISTFAAAACR4nJNpmSzMwMDAxQABzFCaEUzOmNZg/wEiAHCYBUs=")
	f.Fuzz(func(t *testing.T, enc string) {
		var c Codec
		var s sparseHist
		if c.decode(enc, &s) != nil {
			return
		}
		again := c.encode(&s)
		var s2 sparseHist
		if err := c.decode(again, &s2); err != nil || len(s2.idx) != len(s.idx) {
			t.Fatalf("re-encoded %q does not decode to the same buckets: %v", again, err)
		}
		if len(s.idx) == 0 {
			return
		}
		lib, err := hdr.Decode([]byte(again))
		if err != nil {
			t.Fatalf("the library refuses the codec's encoding of %q: %v", enc, err)
		}
		var total int64
		for _, n := range s.cnt {
			total += n
		}
		if lib.TotalCount() != total {
			t.Fatalf("the library reads %d values, the codec %d", lib.TotalCount(), total)
		}
	})
}

// The codec's indexing is hdrhistogram-go's for objbench's geometry.
func TestSparseGeometry(t *testing.T) {
	h := NewHistogram()
	if n := len(h.Export().Counts); n != histCounts {
		t.Fatalf("the geometry has %d buckets, the codec indexes %d", n, histCounts)
	}
	for _, i := range []int32{0, 1, subBucketHalf, 2 * subBucketHalf, histCounts - 1} {
		one := NewHistogram()
		if err := one.RecordValue(bucketValue(i)); err != nil {
			t.Fatal(err)
		}
		if got := one.Export().Counts[i]; got != 1 {
			t.Fatalf("bucket %d: its lowest value %d lands elsewhere in the library's counts", i, bucketValue(i))
		}
	}
}
