package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReportTimelineAndOldFiles(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(t.TempDir(), "r.json")
	// 1.5 s: the step must hold at least one of the sampler's 1 s ticks.
	code, stdout, stderr := execute(t, nil, "put", "--target", "file://"+dir, "--duration", "1500ms", "--size", "1KiB",
		"--concurrency", "2", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "verdict: ") {
		t.Errorf("no verdict after the table:\n%s", stdout)
	}
	code, tl, stderr := execute(t, nil, "report", out, "--timeline")
	if code != 0 || !strings.Contains(tl, "# step 0: main conc 2") || !strings.Contains(tl, "verdict: ") {
		t.Errorf("report --timeline: exit %d, stdout:\n%s\nstderr: %s", code, tl, stderr)
	}

	// A file written before objbench sampled the machine still reports.
	var doc map[string]any
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc, "system")
	old := filepath.Join(t.TempDir(), "old.json")
	b, _ := json.Marshal(doc)
	if err := os.WriteFile(old, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, table, _ := execute(t, nil, "report", old); code != 0 || strings.Contains(table, "verdict") {
		t.Errorf("old file: exit %d, table:\n%s", code, table)
	}
	if code, _, errs := execute(t, nil, "report", old, "--timeline"); code != 1 || !strings.Contains(errs, "no system timeline") {
		t.Errorf("old file --timeline: exit %d, stderr %q; want exit 1 saying there is no timeline", code, errs)
	}
	if code, _, _ := execute(t, nil, "put", "--target", "file://"+dir, "--ops", "1", "--link-speed", "fast"); code != 2 {
		t.Errorf("--link-speed fast: exit %d, want 2", code)
	}
}
