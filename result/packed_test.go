package result_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/objbench/objbench/result"
)

// parts of a run as splitRun records them, with errors, drops and
// response times in some seconds so every field of a record is packed.
func richParts(t *testing.T, n int) []*result.Run {
	parts, _ := splitRun(t, n, 4*time.Second, uint64(10+n))
	for _, p := range parts {
		s := &p.Steps[0].Streams[0]
		for i := range s.Seconds {
			for j := range s.Seconds[i].Ops {
				o := &s.Seconds[i].Ops[j]
				o.TTFB = o.Latency
				if i%2 == 1 {
					o.Errors = map[string]int64{"timeout": 2, "http 503": int64(i)}
					o.Ops += 2 + int64(i)
					o.Dropped = int64(i)
					o.Response = o.Latency
				}
			}
		}
		if err := s.SetWindow(s.Window); err != nil {
			t.Fatal(err)
		}
	}
	return parts
}

// v4Doc is r as version 4 wrote it: one JSON record per second, each
// histogram V2 text.
func v4Doc(t *testing.T, r *result.Run) []byte {
	cp := *r
	cp.Schema = 4
	b, err := json.MarshalIndent(&cp, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func v5Doc(t *testing.T, r *result.Run) []byte {
	var buf bytes.Buffer
	if err := result.Encode(&buf, r); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sources(docs [][]byte) []result.Source {
	var out []result.Source
	for i, d := range docs {
		out = append(out, result.Source{Name: fmt.Sprintf("w%d.json", i), Read: func() ([]byte, error) { return d, nil }})
	}
	return out
}

// What a second holds, histograms as their counts (the forms differ).
type secondView struct {
	T                   int64
	Op                  string
	Ops, Bytes, Dropped int64
	Errors              map[string]int64
	Ticks               *result.Ticks
	Hists               [3]string
}

func viewSeconds(t *testing.T, secs []result.Second) []secondView {
	var out []secondView
	for _, s := range secs {
		for _, o := range s.Ops {
			v := secondView{T: s.T, Op: o.Op, Ops: o.Ops, Bytes: o.Bytes, Dropped: o.Dropped, Errors: o.Errors, Ticks: o.Ticks}
			for k, enc := range []string{o.Latency, o.TTFB, o.Response} {
				if enc == "" {
					continue
				}
				h, err := result.DecodeHistogram(enc)
				if err != nil {
					t.Fatal(err)
				}
				v.Hists[k] = fmt.Sprint(h.Distribution())
			}
			out = append(out, v)
		}
		if len(s.Ops) == 0 {
			out = append(out, secondView{T: s.T})
		}
	}
	return out
}

// A version-5 file reads back to the seconds it was written from: counts,
// errors, ticks and every histogram.
func TestPackedSecondsRoundTrip(t *testing.T) {
	for _, r := range richParts(t, 3) {
		back, err := result.Decode(bytes.NewReader(v5Doc(t, r)))
		if err != nil {
			t.Fatal(err)
		}
		want, got := r.Steps[0].Streams[0], back.Steps[0].Streams[0]
		if !reflect.DeepEqual(viewSeconds(t, want.Seconds), viewSeconds(t, got.Seconds)) {
			t.Fatalf("seconds differ after a round trip:\n%+v\n%+v", viewSeconds(t, want.Seconds), viewSeconds(t, got.Seconds))
		}
		if !reflect.DeepEqual(want.Totals, got.Totals) || want.Window != got.Window || back.Schema != result.Version {
			t.Errorf("totals %+v\nread back %+v (window %+v, %+v)", want.Totals, got.Totals, want.Window, got.Window)
		}
	}
}

// The same workers merged from version-4 files and from version-5 files
// (lazily, two goroutines), and from runs in memory, are the same merge:
// every merged second, the totals and percentiles, the workers table
// (whose p99 a version-5 file's own totals give when it has one op, and
// the merge sums when it has more).
func TestMergeOfNewFormatEqualsMergeOfOld(t *testing.T) {
	for _, n := range []int{1, 4, 9, -3} {
		parts := richParts(t, max(n, -n))
		if n < 0 { // two ops
			for _, p := range parts {
				s := &p.Steps[0].Streams[0]
				for i := range s.Seconds {
					put := s.Seconds[i].Ops[0]
					put.Op, put.Latency, put.TTFB, put.Response = "PUT", s.Seconds[(i+1)%len(s.Seconds)].Ops[0].Latency, "", ""
					s.Seconds[i].Ops = append(s.Seconds[i].Ops, put)
				}
				if err := s.SetWindow(s.Window); err != nil {
					t.Fatal(err)
				}
			}
		}
		var old, cur [][]byte
		for _, p := range parts {
			old, cur = append(old, v4Doc(t, p)), append(cur, v5Doc(t, p))
		}
		fromOld, err := result.MergeSources(context.Background(), sources(old), 2)
		if err != nil {
			t.Fatal(err)
		}
		fromNew, err := result.MergeSources(context.Background(), sources(cur), 2)
		if err != nil {
			t.Fatal(err)
		}
		// Files read by FileSource share two buffers: nothing a merge
		// keeps may point into a file's bytes.
		dir := t.TempDir()
		var files []result.Source
		for i, d := range cur {
			path := filepath.Join(dir, fmt.Sprintf("w%d.json", i))
			if err := os.WriteFile(path, d, 0o644); err != nil {
				t.Fatal(err)
			}
			src := result.FileSource(path)
			src.Name = fmt.Sprintf("w%d.json", i) // as the others are named
			files = append(files, src)
		}
		fromFiles, err := result.MergeSources(context.Background(), files, 2)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for i := range parts {
			names = append(names, fmt.Sprintf("w%d.json", i))
		}
		inMemory, err := result.Merge(parts, names)
		if err != nil {
			t.Fatal(err)
		}
		for name, m := range map[string]*result.Run{"version 7 files": fromNew, "runs in memory": inMemory, "files read into shared buffers": fromFiles} {
			a, b := fromOld.Steps[0].Streams[0], m.Steps[0].Streams[0]
			if !reflect.DeepEqual(viewSeconds(t, a.Seconds), viewSeconds(t, b.Seconds)) {
				t.Errorf("n=%d: %s: merged seconds differ from the merge of version 4 files", n, name)
			}
			if !reflect.DeepEqual(a.Totals, b.Totals) || a.Window != b.Window {
				t.Errorf("n=%d: %s: totals %+v over %+v, from version 4 files %+v over %+v", n, name, b.Totals, b.Window, a.Totals, a.Window)
			}
			if !reflect.DeepEqual(fromOld.Workers, m.Workers) {
				t.Errorf("n=%d: %s: workers %+v, from version 4 files %+v", n, name, m.Workers, fromOld.Workers)
			}
		}
		totals := fromNew.Steps[0].Streams[0].Totals
		ops := 1
		if n < 0 {
			ops = 2
		}
		if tot := totals[len(totals)-1]; len(totals) != ops || tot.Op != "GET" || tot.Latency.Count == 0 || tot.TTFB == nil || tot.Response == nil || len(tot.Errors) != 2 {
			t.Errorf("n=%d: the merge lost what it was to test: %+v", n, tot)
		}
		// The merged file is a result file: it reads back to itself.
		back, err := result.Decode(bytes.NewReader(v5Doc(t, fromNew)))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back.Steps[0].Streams[0].Totals, fromNew.Steps[0].Streams[0].Totals) {
			t.Errorf("n=%d: the merged file reads back to other totals", n)
		}
	}
}

// A corrupt packed stream is an error naming the file, not a panic.
func TestMergeSourcesRefusesCorruptSeconds(t *testing.T) {
	parts := richParts(t, 2)
	good, bad := v5Doc(t, parts[0]), v5Doc(t, parts[1])
	i := bytes.Index(bad, []byte(`"seconds_packed": "`)) + len(`"seconds_packed": "`) + 40
	copy(bad[i:], "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	_, err := result.MergeSources(context.Background(), sources([][]byte{good, bad}), 2)
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("w1.json")) {
		t.Errorf("merge of a corrupt file: %v", err)
	}
	if _, err := result.Decode(bytes.NewReader(bad)); err == nil {
		t.Error("decode of a corrupt file succeeded")
	}
}
