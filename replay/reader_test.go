package replay_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/compressed"
	"github.com/objbench/objbench/replay"
)

func TestDirectoriesAreWalkedInOrderAndFormatsMixed(t *testing.T) {
	dir := t.TempDir()
	e := accessEntry{Time: t0, Bucket: "b", Op: "REST.GET.OBJECT", Status: 200, Sent: 1, Size: 1, Total: 1, Turn: 1}
	write := func(name string, k compressed.Kind, text string) {
		path := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		var buf bytes.Buffer
		w, _ := compressed.NewWriter(&buf, k)
		w.Write([]byte(text))
		w.Close()
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("2026/02/b.log.gz", compressed.Gzip, with(e, func(e *accessEntry) { e.Key = "second" }).line()+"\n")
	write("2026/02/a.log", compressed.None, with(e, func(e *accessEntry) { e.Key = "first" }).line()+"\n")
	write("2026/03/c.zst", compressed.Zstd, with(e, func(e *accessEntry) { e.Key = "third" }).line()+"\n")
	write("2026/04/empty", compressed.None, "\n\n")
	ct, _ := json.Marshal(map[string]any{"Records": []any{ctEvent("GetObject", "b", "fourth", 0, 1, nil)}})
	write("2026/05/ct.json.gz", compressed.Gzip, string(ct))
	r, err := replay.Open([]string{dir}, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var keys []string
	for r.Next() {
		keys = append(keys, r.Record().Key)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(keys, ","); got != "first,second,third,fourth" {
		t.Errorf("keys in order %s", got)
	}
	if st := r.Stats(); st.Files != 5 {
		t.Errorf("%d files read, want 5", st.Files)
	}
}

func TestFormatDetectionAndOverride(t *testing.T) {
	_, _, err := readAll(t, "hello world\n", replay.Options{})
	if err == nil || !strings.Contains(err.Error(), "cannot tell the trace format") {
		t.Errorf("unknown text: %v", err)
	}
	// An access log read as an op log: every line is counted, none used.
	e := accessEntry{Time: t0, Bucket: "b", Op: "REST.GET.OBJECT", Key: "k", Status: 200, Sent: 1, Size: 1, Total: 1, Turn: 1}
	recs, st, err := readAll(t, e.line()+"\n"+e.line()+"\n", replay.Options{Format: replay.FormatOpLog})
	if err != nil || len(recs) != 0 || st.Skipped["malformed line"] == nil || st.Skipped["malformed line"].Count != 2 {
		t.Errorf("forced op log: %d records, err %v, skipped %+v", len(recs), err, st.Skipped)
	}
	if _, err := replay.ParseFormat("nginx"); err == nil {
		t.Error("ParseFormat took nginx")
	}
}
