package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/objbench/objbench/result"
)

// TestStreamsSharingANameAreToldApart: two COSBench works called "rw" in
// one workstage, both reading. Read back from a file (as report reads
// it), every table names them apart, the TTFB table included, and a
// compare of the file with itself keeps two rows.
func TestStreamsSharingANameAreToldApart(t *testing.T) {
	r := tableResult(t)
	main := &r.Steps[1]
	main.Streams[1] = main.Streams[0] // a second GET stream ...
	main.Streams[1].Concurrency = 3
	main.Streams[0].Name, main.Streams[1].Name = "rw", "rw" // ... of the same name
	path := filepath.Join(t.TempDir(), "r.json")
	if err := result.Write(path, r); err != nil {
		t.Fatal(err)
	}
	back, err := result.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteTable(&b, back); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	rates, rest, _ := strings.Cut(out, "Time to first byte")
	ttfb, _, _ := strings.Cut(rest, "\n\n")
	for name, table := range map[string]string{"rates": rates, "ttfb": ttfb} {
		if !containsLine(table, "main", "rw", "GET", "4") || !containsLine(table, "main", "rw#2", "GET", "3") {
			t.Errorf("the %s table does not tell the two rw streams apart:\n%s", name, table)
		}
	}
	if !strings.Contains(out, "stream rw: rates over") || !strings.Contains(out, "stream rw#2: rates over") {
		t.Errorf("step lines:\n%s", out)
	}
	b.Reset()
	if err := WriteCompareTable(&b, Compare(back, back)); err != nil {
		t.Fatal(err)
	}
	if !containsLine(b.String(), "rw#2", "GET") {
		t.Errorf("compare lost the second rw stream:\n%s", b.String())
	}
}

// containsLine reports whether a line of s holds all fields, in order, as
// whole words.
func containsLine(s string, fields ...string) bool {
	for line := range strings.Lines(s) {
		f := strings.Fields(line)
		i := 0
		for _, w := range f {
			if i < len(fields) && w == fields[i] {
				i++
			}
		}
		if i == len(fields) {
			return true
		}
	}
	return false
}
