package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/workload"
)

// TestTargetsCompared runs one workload on two file targets, one flushing at
// the end: a result file each, and one table with a row per target.
func TestTargetsCompared(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	out := filepath.Join(t.TempDir(), "r.json")
	code, stdout, errs := execute(t, nil, "put", "--target", "file://"+a, "--target", "file://"+b,
		"--size", "8KiB", "--ops", "300", "-c", "2", "--fsync", "at-end", "-q", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	for i, dir := range []string{a, b} {
		res, err := result.Read(strings.TrimSuffix(out, ".json") + "-" + string(rune('1'+i)) + ".json")
		if err != nil {
			t.Fatal(err)
		}
		if res.Target.Root != dir {
			t.Errorf("result %d measured %s, want %s", i+1, res.Target.Root, dir)
		}
		if ops, ok, bytes := totals(res, "main", "PUT"); ops != 300 || ok != 300 || bytes != 300*8192 {
			t.Errorf("%s: %d of %d PUTs ok, %d bytes", dir, ok, ops, bytes)
		}
		main := res.Steps[0]
		if main.Synced <= 0 || main.Synced > main.Elapsed {
			t.Errorf("%s: --fsync at-end synced for %v of the step's %v", dir, main.Synced, main.Elapsed)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%s still holds %d entries after cleanup", dir, len(entries))
		}
	}
	_, table, ok := strings.Cut(stdout, "Targets compared (2 of 2 ran)\n")
	if !ok {
		t.Fatalf("no comparison table:\n%s", stdout)
	}
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], "TIME (s)") || !strings.Contains(lines[0], "KB/s") ||
		!strings.Contains(lines[1], "file://"+a) || !strings.Contains(lines[2], "file://"+b) {
		t.Errorf("comparison table:\n%s", table)
	}
	for _, l := range lines[1:3] {
		if f := strings.Fields(l); len(f) < 8 || f[0] != "main" || f[1] != "PUT" || f[2] != "8.19" || f[3] != "KB" || f[6] != "300" {
			t.Errorf("row %q: want main PUT 8.19 KB (8 KiB, as the seed writes KB) ... 300 ops", l)
		}
	}
}

func TestTargetsBadInputWritesNothing(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	for _, args := range [][]string{
		{"put", "--target", "file://" + t.TempDir(), "--target", "ftp://x", "--out", out},
		{"put", "--target", "file://" + t.TempDir(), "--target", "file://" + t.TempDir(), "--fsync", "sometimes", "--out", out},
		{"transfer", "gen:1KiB", "s3://b/p", "--target", "s3://b", "--target", "s3://c"},
	} {
		if code, _, errs := execute(t, nil, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errs)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("bad input left %d files in the output directory", len(entries))
	}
}

// TestFsyncPerFileAndNone: both modes run, and neither syncs at the end.
func TestFsyncPerFileAndNone(t *testing.T) {
	for _, mode := range []string{"per-file", "none"} {
		out := filepath.Join(t.TempDir(), "r.json")
		if code, _, errs := execute(t, nil, "put", "--target", "file://"+t.TempDir(), "--size", "4KiB", "--ops", "50",
			"--fsync", mode, "-q", "--out", out); code != 0 {
			t.Fatalf("--fsync %s: exit %d\n%s", mode, code, errs)
		}
		res, err := result.Read(out)
		if err != nil {
			t.Fatal(err)
		}
		var spec workload.Spec
		if err := json.Unmarshal(res.Spec, &spec); err != nil {
			t.Fatal(err)
		}
		if s := spec.Stages[0].Streams[0]; s.Fsync != (mode == "per-file") || s.SyncAtEnd || res.Steps[0].Synced != 0 {
			t.Errorf("--fsync %s: spec fsync %v, at end %v, synced %v", mode, s.Fsync, s.SyncAtEnd, res.Steps[0].Synced)
		}
	}
}

// TestFsyncWithAWorkloadFile: --fsync applies to every prepare and main
// stream of a workload file (the same file, on stable storage or not), and
// a per_target count applies to its target kind only.
func TestFsyncWithAWorkloadFile(t *testing.T) {
	dir := t.TempDir()
	w := filepath.Join(dir, "w.yaml")
	if err := os.WriteFile(w, []byte(`stages:
  - {kind: main, total_ops: 40, per_target: {s3: {total_ops: 3}}, ops: {write: 100}, objects: {prefix: m/}, size: 4KB}
  - {kind: cleanup}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		mode   string
		target []string
		ops    int64
	}{
		{"at-end", []string{"--target", "file://" + t.TempDir()}, 40},
		{"per-file", []string{"--target", "file://" + t.TempDir()}, 40},
		{"none", nil, 3}, // the embedded server: an s3 target
	} {
		out := filepath.Join(t.TempDir(), "r.json")
		args := append([]string{"run", w, "--fsync", c.mode, "-q", "--out", out}, c.target...)
		if code, _, errs := execute(t, nil, args...); code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, errs)
		}
		res, err := result.Read(out)
		if err != nil {
			t.Fatal(err)
		}
		var spec workload.Spec
		if err := json.Unmarshal(res.Spec, &spec); err != nil {
			t.Fatal(err)
		}
		s := spec.Stages[0].Streams[0]
		if string(workload.FsyncOf(s)) != c.mode {
			t.Errorf("--fsync %s with a file: the run's spec says %v", c.mode, workload.FsyncOf(s))
		}
		if ops, _, _ := res.OpTotals("main", "PUT"); ops != c.ops {
			t.Errorf("--fsync %s on %v: %d PUTs, want %d", c.mode, c.target, ops, c.ops)
		}
		if (res.Steps[0].Synced > 0) != (c.mode == "at-end") {
			t.Errorf("--fsync %s: synced %v", c.mode, res.Steps[0].Synced)
		}
	}
	if code, _, _ := execute(t, nil, "run", w, "--fsync", "sometimes"); code != 2 {
		t.Errorf("--fsync sometimes with a file: exit %d, want 2", code)
	}
}
