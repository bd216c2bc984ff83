package result

import (
	"os"
	"reflect"
	"runtime"
	"testing"
)

// A stream's packed seconds are untrusted input (result files are handed
// to report, compare and merge): whatever the bytes, unpack returns an
// error or seconds that pack again to the same, never panics, and
// allocates in proportion to what it was given.
func FuzzUnpack(f *testing.F) {
	for _, file := range []string{"testdata/v5.json", "testdata/v6.json"} { // zstd frames; huff0 frames
		doc, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		_, texts := cutPacked(doc)
		for k := range texts {
			blob, err := packedBlob("#"+string(rune('0'+k)), texts)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(blob)
		}
	}
	var p packer
	small, err := p.pack([]Second{{T: 0, Ops: []OpSecond{{Op: "GET", Ops: 3, Bytes: 9, Errors: map[string]int64{"timeout": 1},
		Latency: packedTag + "\x02\x05\x01", Ticks: &Ticks{OK: []int64{1, 0, 1}, Bytes: []int64{9}}}}}, {T: 1}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(small)
	dec := newDecoder()
	f.Fuzz(func(t *testing.T, blob []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		secs, err := unpack(blob, dec)
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 2000*uint64(len(blob))+1<<20 {
			t.Fatalf("%d bytes of input allocated %d bytes", len(blob), grew)
		}
		if err != nil {
			return
		}
		var sp sparseHist
		for _, s := range secs {
			for _, o := range s.Ops {
				for _, h := range []string{o.Latency, o.TTFB, o.Response} {
					if h != "" && !isPacked(h) {
						t.Fatalf("unpacked a histogram not packed: %q", h)
					}
					_ = parsePacked(h, &sp) // a histogram is checked where it is read
				}
			}
		}
		again, err := p.pack(secs)
		if err != nil {
			t.Fatalf("accepted seconds do not pack: %v", err)
		}
		back, err := unpack(again, dec)
		if err != nil || !reflect.DeepEqual(back, secs) {
			t.Fatalf("accepted seconds pack to others: %v", err)
		}
	})
}

// A packed histogram is untrusted too: an error, or one that packs back
// to the same counts; a merge's adding (addPackedPaged2, which reads most
// buckets its own way) agrees with DecodeHistogram on both.
func FuzzPackedHistogram(f *testing.F) {
	f.Add([]byte("\x02\x05\x01"))
	f.Add([]byte{0xfe, 0xff, 0x7f})
	f.Add([]byte{0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f})
	f.Fuzz(func(t *testing.T, payload []byte) {
		h, err := DecodeHistogram(packedTag + string(payload))
		var sum, also pagedHist
		if addErr := addPackedPaged2(&sum, &also, payload); (addErr == nil) != (err == nil) {
			t.Fatalf("DecodeHistogram: %v; a merge's adding: %v", err, addErr)
		} else if err == nil && (!sum.histogram().Equals(h) || !also.histogram().Equals(h)) {
			t.Fatal("a merge's adding sums other counts than DecodeHistogram reads")
		}
		if err != nil {
			return
		}
		back, err := DecodeHistogram(PackHistogram(h))
		if h.TotalCount() > 0 && (err != nil || !back.Equals(h)) {
			t.Fatalf("packs back to another histogram: %v", err)
		}
	})
}

// packedBlob is the packed seconds a stream's seconds_packed field
// refers to: "#k", the k-th cut string, or base64 text itself.
func packedBlob(field string, texts [][]byte) ([]byte, error) {
	text, _, err := packedText(field, texts)
	if err != nil {
		return nil, err
	}
	return decodeBase64(text, nil)
}
