package result_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/result"
)

var updateSchema = flag.Bool("update-schema", false, "record the current schema in testdata/schema-vN.txt")

// Every result file format objbench ever wrote still reads: one file per
// version, written by that version, decodes with its totals recomputed.
func TestEveryVersionDecodes(t *testing.T) {
	for v := 1; v <= result.Version; v++ {
		path := filepath.Join("testdata", fmt.Sprintf("v%d.json", v))
		r, err := result.Read(path)
		if err != nil {
			t.Fatalf("version %d: %v (keep a file of every version in testdata)", v, err)
		}
		var ops int64
		for _, st := range r.Steps {
			for _, s := range st.Streams {
				for _, tot := range s.Totals {
					ops += tot.Ops
				}
			}
		}
		if r.Schema != v || ops == 0 || r.RunID == "" || len(r.Spec) == 0 {
			t.Errorf("version %d: schema %d, %d ops, run %q, spec %d bytes", v, r.Schema, ops, r.RunID, len(r.Spec))
		}
	}
}

// A newer file is refused with a clear message, not misread.
func TestNewerVersionIsRefused(t *testing.T) {
	doc := fmt.Sprintf(`{"schema": %d, "steps": []}`, result.Version+1)
	if _, err := result.Decode(strings.NewReader(doc)); err == nil || !strings.Contains(err.Error(), "upgrade objbench") {
		t.Errorf("decode of a newer schema: %v", err)
	}
}

// The file's shape (every JSON field and its type) is recorded per
// version: changing it without bumping result.Version fails here.
func TestSchemaChangesAreVersioned(t *testing.T) {
	got := shape(reflect.TypeOf(result.Run{}), "", map[reflect.Type]bool{})
	sort.Strings(got)
	text := strings.Join(got, "\n") + "\n"
	path := filepath.Join("testdata", fmt.Sprintf("schema-v%d.txt", result.Version))
	if *updateSchema {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: record the schema of version %d with go test ./result -update-schema", err, result.Version)
	}
	if !bytes.Equal(want, []byte(text)) {
		t.Errorf("the result file's shape differs from %s: a schema change needs a new result.Version, a testdata/vN.json "+
			"written by it and Decode reading the old one; then go test ./result -update-schema.\nnow:\n%s", path, text)
	}
}

// shape lists "json.path type" for every field reachable from t.
func shape(t reflect.Type, prefix string, seen map[reflect.Type]bool) []string {
	switch t.Kind() {
	case reflect.Pointer:
		return shape(t.Elem(), prefix, seen)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 { // json.RawMessage, []byte
			return []string{prefix + " bytes"}
		}
		return shape(t.Elem(), prefix+"[]", seen)
	case reflect.Map:
		return shape(t.Elem(), prefix+"{}", seen)
	case reflect.Struct:
		if t == reflect.TypeOf(time.Time{}) {
			return []string{prefix + " time"}
		}
		if seen[t] {
			return []string{prefix + " " + t.Name()}
		}
		seen[t] = true
		defer delete(seen, t)
		var out []string
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if f.Anonymous && name == "" {
				out = append(out, shape(f.Type, prefix, seen)...)
				continue
			}
			if name == "" {
				name = f.Name
			}
			out = append(out, shape(f.Type, prefix+"."+name, seen)...)
		}
		return out
	}
	return []string{prefix + " " + t.Kind().String()}
}
