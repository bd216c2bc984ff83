package resultpack

import (
	"math/rand/v2"
	"os"
	"reflect"
	"runtime"
	"slices"
	"testing"
)

// A stream's packed seconds are untrusted input (result files are handed
// to report, compare and merge): whatever the bytes, unpack returns an
// error or seconds that pack again to the same, never panics, and
// allocates in proportion to what it was given.
func FuzzUnpack(f *testing.F) {
	for _, file := range []string{"../../result/testdata/v5.json", "../../result/testdata/v6.json", "../../result/testdata/v7.json"} { // zstd frames; huff0 frames; the split form
		doc, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		_, texts, _ := Cut(doc)
		for k := range texts {
			blob, err := packedBlob("#"+string(rune('0'+k)), texts)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(blob)
		}
	}
	var p Packer
	small, err := p.Pack([]Second{{T: 0, Ops: []OpSecond{{Op: "GET", Ops: 3, Bytes: 9, Errors: map[string]int64{"timeout": 1},
		Hists: [3]string{packedTag + "\x02\x05\x01"}, Ticks: &Ticks{OK: []int64{1, 0, 1}, Bytes: []int64{9}}}}}, {T: 1}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(small)
	dec := NewDecoder()
	f.Fuzz(func(t *testing.T, blob []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		secs, err := Unpack(blob, dec)
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 2000*uint64(len(blob))+1<<20 {
			t.Fatalf("%d bytes of input allocated %d bytes", len(blob), grew)
		}
		if err != nil {
			return
		}
		for _, s := range secs {
			for _, o := range s.Ops {
				for _, h := range o.Hists {
					if h != "" && !IsPacked(h) {
						t.Fatalf("unpacked a histogram not packed: %q", h)
					}
				}
			}
		}
		// Histograms are checked where they are read, and packed again in
		// the split form: the seconds read back are these, their
		// histograms in that form.
		want, ok := inSplitForm(secs)
		if !ok {
			return
		}
		again, err := p.Pack(secs)
		if err != nil {
			t.Fatalf("accepted seconds do not pack: %v", err)
		}
		back, err := Unpack(again, dec)
		if err != nil || !reflect.DeepEqual(back, want) {
			t.Fatalf("accepted seconds pack to others: %v", err)
		}
	})
}

// inSplitForm is secs with every histogram in the split form; false when
// one is not a packed histogram that reads.
func inSplitForm(secs []Second) ([]Second, bool) {
	var sp sparseHist
	var w SplitWriter
	out := make([]Second, len(secs))
	for i, s := range secs {
		out[i] = Second{T: s.T, Ops: slices.Clone(s.Ops)}
		for j := range out[i].Ops {
			o := &out[i].Ops[j]
			for k := range o.Hists {
				h := &o.Hists[k]
				if *h == "" {
					continue
				}
				if parsePackedString(*h, &sp) != nil {
					return nil, false
				}
				*h = string(w.appendSparse([]byte(splitTag), &sp))
			}
		}
	}
	return out, true
}

// A packed histogram is untrusted too: in either form, an error or one
// that packs back to the same counts; a merge's adding (addPackedTo,
// which reads most buckets its own way) agrees with DecodeHistogram. A
// split payload that reads is the one split form of its counts.
func FuzzPackedHistogram(f *testing.F) {
	f.Add([]byte("\x02\x05\x01"))
	f.Add([]byte{0xfe, 0xff, 0x7f})
	f.Add([]byte{0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f})
	var w SplitWriter
	w.reset()
	for i, c := range []int64{1, 2, 3, 4, 1, 1, 300, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3} {
		w.add(i*i, c) // gaps of 255 and more, counts of 4 and more, and 16 buckets in a row
	}
	f.Add(w.appendTo(nil))
	f.Add([]byte(PackHistogram(randomHist(rand.New(rand.NewPCG(1, 2)), 500))[len(splitTag):]))
	f.Fuzz(func(t *testing.T, payload []byte) {
		for _, tag := range []string{packedTag, splitTag} {
			h, err := DecodePacked(tag + string(payload))
			var sum, also Paged
			pooled := Paged{pool: &Pool{}} // a merged second's: its pages in a block
			if addErr := sum.Add(payload, tag == splitTag, &also); (addErr == nil) != (err == nil) {
				t.Fatalf("tag %q: DecodePacked: %v; a merge's adding: %v", tag, err, addErr)
			} else if err == nil && (!sum.Histogram().Equals(h) || !also.Histogram().Equals(h)) {
				t.Fatalf("tag %q: a merge's adding sums other counts than DecodePacked reads", tag)
			}
			if addErr := pooled.Add(payload, tag == splitTag, nil); (addErr == nil) != (err == nil) {
				t.Fatalf("tag %q: DecodePacked: %v; a merged second's adding: %v", tag, err, addErr)
			} else if err == nil {
				var w SplitWriter
				enc, _, _ := pooled.Pack(&w, nil, nil)
				if back, _ := DecodePacked(enc); h.TotalCount() > 0 && (back == nil || !back.Equals(h)) {
					t.Fatalf("tag %q: a merged second's adding sums other counts than DecodePacked reads", tag)
				}
				for _, b := range pooled.pool.free {
					if *b != (countBlock{}) {
						t.Fatalf("tag %q: a merged second's block goes back to the pool with counts in it", tag)
					}
				}
			}
			if err != nil || h.TotalCount() == 0 {
				continue
			}
			enc := PackHistogram(h)
			if back, err := DecodePacked(enc); err != nil || !back.Equals(h) {
				t.Fatalf("tag %q: packs back to another histogram: %v", tag, err)
			}
			if tag == splitTag && enc != splitTag+string(payload) {
				t.Fatalf("split payload %x reads, but its counts pack to %x", payload, enc[len(splitTag):])
			}
			var sp sparseHist // a bucket at a time (add), as the encoder packs older files' seconds
			if err := parsePackedString(tag+string(payload), &sp); err != nil {
				t.Fatalf("tag %q: DecodePacked reads it, parsePackedString: %v", tag, err)
			}
			var w SplitWriter
			if one := w.appendSparse([]byte(splitTag), &sp); string(one) != enc {
				t.Fatalf("tag %q: packed a bucket at a time to %x, a run at a time to %x", tag, one, enc)
			}
		}
	})
}

// packedBlob is the packed seconds a stream's seconds_packed field
// refers to: "#k", the k-th cut string, or base64 text itself.
func packedBlob(field string, texts [][]byte) ([]byte, error) {
	text, _, err := Text(field, texts)
	if err != nil {
		return nil, err
	}
	return DecodeBase64(text, nil)
}
