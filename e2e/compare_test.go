package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// compare and report's exports work on files the binary wrote, with the
// exit codes CI pipelines rely on.
func TestCompareAndExportsOnRealResults(t *testing.T) {
	dir, data := t.TempDir(), t.TempDir()
	for _, name := range []string{"a.json", "b.json"} {
		objbench(t, dir, nil, "put", "--target", "file://"+data, "--ops", "300",
			"--size", "1KiB", "--out", name).mustSucceed(t)
	}
	r := objbench(t, dir, nil, "compare", "--fail-if", "errors>+0%", "a.json", "b.json").mustSucceed(t)
	if !strings.Contains(r.stdout, "b.json") || !strings.Contains(r.stdout, " PUT ") {
		t.Errorf("compare table:\n%s", r.stdout)
	}
	if r := objbench(t, dir, nil, "compare", "--fail-if", "p99>>1%", "a.json", "b.json"); r.code != 2 || !strings.Contains(r.stderr, "p99>>1%") {
		t.Errorf("bad --fail-if: exit %d, stderr %q", r.code, r.stderr)
	}
	r = objbench(t, dir, nil, "report", "--json", "--hdr-log", "logs", "a.json").mustSucceed(t)
	if !strings.HasPrefix(r.stdout, "{") {
		t.Errorf("report --json printed:\n%s", r.stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "logs", "put.hlog")); err != nil {
		t.Error(err)
	}
}
