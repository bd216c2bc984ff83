package result_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/objbench/objbench/result"
)

// Decode never panics, whatever it is given (report, compare and merge
// read files users hand them), and what it accepts encodes again.
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "v*.json"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"schema":2,"steps":[{"streams":[{"seconds":[{"t":0,"ops":[{"op":"GET","ops":1,"ticks":{"ok":[1],"bytes":[9]}}]}],"window":{"start_s":0,"end_s":0.5}}]}]}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		r, err := result.Decode(bytes.NewReader(doc))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := result.Encode(&buf, r); err != nil {
			t.Fatalf("a decoded result does not encode: %v", err)
		}
	})
}

// A histogram round-trips; one of another geometry is refused before it
// is decoded (a wide one would allocate tens of MiB).
func TestDecodeHistogramChecksGeometry(t *testing.T) {
	h := result.NewHistogram()
	for v := int64(1); v < 1e6; v *= 3 {
		_ = h.RecordValue(v)
	}
	back, err := result.DecodeHistogram(result.EncodeHistogram(h))
	if err != nil || back.TotalCount() != h.TotalCount() || back.ValueAtQuantile(99) != h.ValueAtQuantile(99) {
		t.Fatalf("round trip: %v, %d values", err, back.TotalCount())
	}
	wide := hdr.New(1, math.MaxInt64/4, 5)
	_ = wide.RecordValue(42)
	enc, _ := wide.Encode(hdr.V2CompressedEncodingCookieBase)
	if _, err := result.DecodeHistogram(string(enc)); err == nil {
		t.Error("a histogram of another geometry was decoded")
	}
}
