package result_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/objbench/objbench/internal/resulttest"
	"github.com/objbench/objbench/result"
)

func encoded(t *testing.T, r *result.Run) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := result.Encode(&buf, r); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A version-5 file reads back to the seconds it was written from: counts,
// errors, ticks and every histogram.
func TestPackedSecondsRoundTrip(t *testing.T) {
	for _, r := range resulttest.RichParts(t, 3) {
		back, err := result.Decode(bytes.NewReader(encoded(t, r)))
		if err != nil {
			t.Fatal(err)
		}
		want, got := r.Steps[0].Streams[0], back.Steps[0].Streams[0]
		if !reflect.DeepEqual(resulttest.ViewSeconds(t, want.Seconds), resulttest.ViewSeconds(t, got.Seconds)) {
			t.Fatalf("seconds differ after a round trip:\n%+v\n%+v", resulttest.ViewSeconds(t, want.Seconds), resulttest.ViewSeconds(t, got.Seconds))
		}
		if !reflect.DeepEqual(want.Totals, got.Totals) || want.Window != got.Window || back.Schema != result.Version {
			t.Errorf("totals %+v\nread back %+v (window %+v, %+v)", want.Totals, got.Totals, want.Window, got.Window)
		}
	}
}
