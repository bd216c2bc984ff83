package atomicfile_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/objbench/objbench/atomicfile"
)

func TestWriteIsAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	if err := atomicfile.Write(path, 0o644, func(w io.Writer) error { _, err := io.WriteString(w, "v1"); return err }); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := atomicfile.Write(path, 0o644, func(w io.Writer) error { io.WriteString(w, "half"); return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	b, _ := os.ReadFile(path)
	info, _ := os.Stat(path)
	entries, _ := os.ReadDir(dir)
	if string(b) != "v1" || info.Mode().Perm() != 0o644 || len(entries) != 1 {
		t.Errorf("content %q, mode %v, %d entries; want v1, 0644, 1", b, info.Mode().Perm(), len(entries))
	}
}
