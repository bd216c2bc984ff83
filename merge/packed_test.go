package merge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/objbench/objbench/internal/resulttest"
	"github.com/objbench/objbench/merge"
	"github.com/objbench/objbench/result"
)

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

func sources(docs [][]byte) []merge.Source {
	var out []merge.Source
	for i, d := range docs {
		out = append(out, merge.Source{Name: fmt.Sprintf("w%d.json", i), Read: func() ([]byte, error) { return d, nil }})
	}
	return out
}

// The same workers merged from version-4 files and from version-5 files
// (lazily, two goroutines), and from runs in memory, are the same merge:
// every merged second, the totals and percentiles, the workers table
// (whose p99 a version-5 file's own totals give when it has one op, and
// the merge sums when it has more).
func TestMergeOfNewFormatEqualsMergeOfOld(t *testing.T) {
	for _, n := range []int{1, 4, 9, -3} {
		parts := resulttest.RichParts(t, max(n, -n))
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
		fromOld, err := merge.Sources(context.Background(), sources(old), 2)
		if err != nil {
			t.Fatal(err)
		}
		fromNew, err := merge.Sources(context.Background(), sources(cur), 2)
		if err != nil {
			t.Fatal(err)
		}
		// Files read by FileSource share two buffers: nothing a merge
		// keeps may point into a file's bytes.
		dir := t.TempDir()
		var files []merge.Source
		for i, d := range cur {
			path := filepath.Join(dir, fmt.Sprintf("w%d.json", i))
			if err := os.WriteFile(path, d, 0o644); err != nil {
				t.Fatal(err)
			}
			src := merge.FileSource(path)
			src.Name = fmt.Sprintf("w%d.json", i) // as the others are named
			files = append(files, src)
		}
		fromFiles, err := merge.Sources(context.Background(), files, 2)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for i := range parts {
			names = append(names, fmt.Sprintf("w%d.json", i))
		}
		inMemory, err := merge.Runs(parts, names)
		if err != nil {
			t.Fatal(err)
		}
		for name, m := range map[string]*result.Run{"version 7 files": fromNew, "runs in memory": inMemory, "files read into shared buffers": fromFiles} {
			a, b := fromOld.Steps[0].Streams[0], m.Steps[0].Streams[0]
			if !reflect.DeepEqual(resulttest.ViewSeconds(t, a.Seconds), resulttest.ViewSeconds(t, b.Seconds)) {
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
	parts := resulttest.RichParts(t, 2)
	good, bad := v5Doc(t, parts[0]), v5Doc(t, parts[1])
	i := bytes.Index(bad, []byte(`"seconds_packed": "`)) + len(`"seconds_packed": "`) + 40
	copy(bad[i:], "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	_, err := merge.Sources(context.Background(), sources([][]byte{good, bad}), 2)
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("w1.json")) {
		t.Errorf("merge of a corrupt file: %v", err)
	}
	if _, err := result.Decode(bytes.NewReader(bad)); err == nil {
		t.Error("decode of a corrupt file succeeded")
	}
}
