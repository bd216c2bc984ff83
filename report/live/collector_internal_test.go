package live

import (
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// promBuckets counts each value at or below a bound in that bound's
// bucket and every larger one; values past the last bound only in the
// count (+Inf); the sum is the values' sum in seconds.
func TestPromBucketsCountUpToEachBound(t *testing.T) {
	h := hdr.New(1, 3_600_000_000, 3)
	for _, us := range []int64{50, 100, 1000, 2000, 70_000_000} {
		if err := h.RecordValue(us); err != nil {
			t.Fatal(err)
		}
	}
	count, sum, b := promBuckets(h)
	if count != 5 {
		t.Errorf("count %d, want 5", count)
	}
	for _, c := range []struct {
		le   float64
		want uint64
	}{{0.0001, 2}, {0.00025, 2}, {0.001, 3}, {0.0025, 4}, {60, 4}} {
		if b[c.le] != c.want {
			t.Errorf("le=%v: %d, want %d", c.le, b[c.le], c.want)
		}
	}
	if want := 70.00315; sum < want*0.999 || sum > want*1.001 {
		t.Errorf("sum %v s, want %v within the HDR's precision", sum, want)
	}
}
