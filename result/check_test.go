package result_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/result"
)

// Files that are not results are refused, named, however they fail to be
// one; a result whose strings hold quotes and backslashes still reads.
func TestReadRefusesWhatIsNotAResult(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct{ doc, want string }{
		"no fields":      {`{"schema":7,"steps":null}`, `no "tool", "run_id", "started" field`},
		"unknown field":  {`{"schema":7,"tool":{},"run_id":"r","started":"2026-01-01T00:00:00Z","steps":[],"junk":1}`, `a field "junk", which no result has`},
		"not an object":  {`[1,2,3]`, "not a JSON object"},
		"binary":         {"\x00\x01\x02PK", "not a JSON object"},
		"cut short":      {`{"schema":7,"tool":{"name":"obj`, "cut short"},
		"empty":          {``, "not a JSON object"},
		"schema a word":  {`{"schema":"seven"}`, "not a version number"},
		"newer is named": {`{"schema":999,"newer":true}`, "upgrade objbench"},
		"nested unknown": {`{"schema":7,"tool":{"a":"x,\"y"},"run_id":"r","started":"2026-01-01T00:00:00Z","steps":[{"k":1,"l":[true,null]}],"x":{}}`,
			`a field "x"`},
	} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".json")
		if err := os.WriteFile(p, []byte(c.doc), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := result.Read(p); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: Read = %v; want an error naming the file and %q", name, err, c.want)
		}
	}
	r := &result.Run{RunInfo: result.RunInfo{Schema: result.Version, RunID: `a"b\`, Tool: result.Tool{Name: "objbench"}, Started: time.Now()},
		CleanupNote: `a "quoted" \ note \\" with }{ brackets ]`}
	p := filepath.Join(dir, "ok.json")
	if err := result.Write(p, r); err != nil {
		t.Fatal(err)
	}
	got, err := result.Read(p)
	if err != nil || got.CleanupNote != r.CleanupNote || got.RunID != r.RunID {
		t.Errorf("a result with quotes and backslashes: %v, %+v", err, got)
	}
}

// A large file that is not a result is refused as its first field shows
// it: reading it allocates a small part of its size (before, a 300 MB file
// of one unknown field took 1.1 GB and printed an empty run).
func TestReadRefusesALargeNonResultWithoutLoadingIt(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.json")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.WriteString(`{"schema":7,"blob":"`)
	chunk := strings.Repeat("x", 1<<20)
	for range 64 {
		w.WriteString(chunk)
	}
	w.WriteString(`"}`)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = result.Read(p)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), `"blob"`) {
		t.Errorf("Read = %v; want the unknown field named", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
		t.Errorf("reading a 64 MiB file that is not a result allocated %d MiB", got>>20)
	}
}

// Every version's file passes the check in its indented form and
// compacted (no blank after ':' or ','), the form other tools write.
func TestCheckPassesEveryVersionCompacted(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "v*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var c bytes.Buffer
		if err := json.Compact(&c, b); err != nil {
			t.Fatal(err)
		}
		for form, doc := range map[string][]byte{"indented": b, "compact": c.Bytes()} {
			if _, err := result.DecodeBytes(doc); err != nil {
				t.Errorf("%s %s: %v", f, form, err)
			}
		}
	}
}
