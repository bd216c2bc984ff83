package testenv

import (
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram encodes latencies (µs, up to an hour) the way result files
// store a second's histogram, for fixtures.
func Histogram(tb testing.TB, us ...int64) string {
	tb.Helper()
	h := hdr.New(1, int64(time.Hour/time.Microsecond), 3)
	for _, v := range us {
		if err := h.RecordValue(v); err != nil {
			tb.Fatal(err)
		}
	}
	b, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}
