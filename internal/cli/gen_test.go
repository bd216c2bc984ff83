package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGenFilesAndFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	code, out, errs := execute(t, nil, "gen", "files", "--count", "3", "--size", "1KiB", "--seed", "9", "-q", dir)
	if code != 0 || !strings.Contains(out, "wrote 3 file(s), 3.0 KiB") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	for _, n := range []string{"file-1", "file-2", "file-3"} {
		if info, err := os.Stat(filepath.Join(dir, n)); err != nil || info.Size() != 1024 || info.Mode().Perm() != 0o644 {
			t.Errorf("%s: %v %v", n, info, err)
		}
	}
	if code, _, errs := execute(t, nil, "gen", "files", "--count", "3", "--size", "1KiB", "-q", dir); code != 1 || !strings.Contains(errs, "already exists") {
		t.Errorf("writing over a dataset: exit %d, %q; want exit 1 and 'already exists'", code, errs)
	}
	big := filepath.Join(t.TempDir(), "big")
	if code, _, errs := execute(t, nil, "gen", "file", "--size", "3MiB", "-q", big); code != 0 {
		t.Fatalf("gen file: exit %d %s", code, errs)
	}
	if info, _ := os.Stat(big); info == nil || info.Size() != 3<<20 {
		t.Errorf("big file: %v", info)
	}
	for _, args := range [][]string{{"gen", "files", "--size", "1KiB", dir}, {"gen", "file", "--size", "4XB", big}, {"gen", "file", big}} {
		if code, _, _ := execute(t, nil, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// A destination through a regular file is bad input, refused before any
// file is written: exit 2, the argument named.
func TestGenRefusesADestinationThroughAFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"gen", "files", "--count", "2", "--size", "1KiB", "-q", filepath.Join(f, "d")},
		{"gen", "file", "--size", "1KiB", "-q", filepath.Join(f, "d")}} {
		if code, _, errs := execute(t, nil, args...); code != 2 || !strings.Contains(errs, "a part of its path is a file, not a directory") {
			t.Errorf("%v: exit %d, %q; want 2 naming the path", args, code, errs)
		}
	}
}
