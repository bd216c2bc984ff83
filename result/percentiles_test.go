package result

import (
	"math/rand/v2"
	"testing"

	"github.com/objbench/objbench/internal/resultpack"
)

// The percentiles read off a summed histogram's pages are, to the bit, those
// hdrhistogram-go computes of the same counts as a dense histogram.
func TestPagedPercentilesAreHdrs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	draws := []func() int64{
		func() int64 { return rng.Int64N(3000) },                                // the linear buckets and the first doubling
		func() int64 { return int64(rng.ExpFloat64() * 5000) },                  // a latency's tail
		func() int64 { return int64(rng.NormFloat64()*50 + 2000) },              // tight around a bucket edge
		func() int64 { return HistHighest - rng.Int64N(1000) },                  // the top of the geometry
		func() int64 { return [...]int64{0, 1, 2047, 2048, 2049}[rng.IntN(5)] }, // edges, and 0
	}
	var codec resultpack.Codec
	for trial := range 2000 {
		h := NewHistogram()
		n := 1 + rng.IntN(300)
		if trial%10 == 0 {
			n = 1 + rng.IntN(3)
		}
		for range n {
			v := draws[rng.IntN(len(draws))]()
			if trial%7 == 0 {
				v = draws[trial%len(draws)]() // one kind alone
			}
			if err := h.RecordValues(max(v, 0), 1+rng.Int64N(4)); err != nil {
				t.Fatal(err)
			}
		}
		var p resultpack.Paged
		if err := p.AddText(resultpack.PackHistogram(h), &codec); err != nil {
			t.Fatal(err)
		}
		if got, want := pagedPercentiles(&p), PercentilesOf(h); got != want {
			t.Fatalf("trial %d: paged %+v\nhdr %+v", trial, got, want)
		}
	}
	if got := pagedPercentiles(nil); got != (Percentiles{}) {
		t.Errorf("nil: %+v", got)
	}
}
