package dataset_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/objbench/objbench/dataset"
)

func digest(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

func TestWriteFilesCountsSizesAndNames(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	var c dataset.Counter
	if err := dataset.WriteFiles(context.Background(), dir, 12, 10_000, dataset.Options{Seed: 7, Counter: &c}); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 12 || entries[0].Name() != "file-01" || entries[11].Name() != "file-12" {
		t.Fatalf("got %d entries, first %q", len(entries), entries[0].Name())
	}
	for _, e := range entries {
		if info, _ := e.Info(); info.Size() != 10_000 {
			t.Errorf("%s has %d bytes", e.Name(), info.Size())
		}
	}
	if c.Files.Load() != 12 || c.Bytes.Load() != 120_000 {
		t.Errorf("counter: %d files, %d bytes", c.Files.Load(), c.Bytes.Load())
	}
	if digest(t, filepath.Join(dir, "file-01")) == digest(t, filepath.Join(dir, "file-02")) {
		t.Error("two files of a set carry the same bytes")
	}
}

func TestSeedReproducesBytes(t *testing.T) {
	d := t.TempDir()
	ctx := context.Background()
	for _, c := range []struct {
		name string
		seed uint64
	}{{"a", 1}, {"b", 1}, {"c", 2}} {
		if err := dataset.WriteFile(ctx, filepath.Join(d, c.name), 3<<20+5, dataset.Options{Seed: c.seed}); err != nil {
			t.Fatal(err)
		}
	}
	a, b, c := digest(t, filepath.Join(d, "a")), digest(t, filepath.Join(d, "b")), digest(t, filepath.Join(d, "c"))
	if a != b || a == c {
		t.Errorf("same seed equal: %v (want true); other seed differs: %v (want true)", a == b, a != c)
	}
}

func TestRefusesToOverwriteUnlessForced(t *testing.T) {
	d := t.TempDir()
	path := filepath.Join(d, "file-1")
	if err := os.WriteFile(path, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := dataset.WriteFiles(context.Background(), d, 1, 100, dataset.Options{})
	if err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("err = %v, want 'already exists'", err)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, []byte("mine")) {
		t.Fatal("an existing file was changed")
	}
	if err := dataset.WriteFiles(context.Background(), d, 1, 100, dataset.Options{Force: true}); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(path); info.Size() != 100 {
		t.Fatal("--force did not replace the file")
	}
}

func TestCancelLeavesNoPartialFile(t *testing.T) {
	d := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := dataset.WriteFile(ctx, filepath.Join(d, "big"), 64<<20, dataset.Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if entries, _ := os.ReadDir(d); len(entries) != 0 {
		t.Fatalf("cancelled write left %v", entries)
	}
}
