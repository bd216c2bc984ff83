package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteFiles creates files under dir (slash-separated paths relative to it,
// parents made as needed) with the given contents.
func WriteFiles(tb testing.TB, dir string, files map[string]string) {
	tb.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}
