package fs_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/fs"
	"github.com/objbench/objbench/storage/storagetest"
)

func newStore(t *testing.T, o fs.Options) *fs.Store {
	t.Helper()
	s, err := fs.New(t.TempDir(), o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConformance(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store { return newStore(t, fs.Options{}) })
}

func TestConformanceShared(t *testing.T) {
	s := newStore(t, fs.Options{})
	storagetest.Run(t, func(*testing.T) storage.Store { return s })
}

func TestConformanceDirect(t *testing.T) {
	if _, err := fs.New(t.TempDir(), fs.Options{Direct: true}); err != nil {
		t.Skipf("O_DIRECT unavailable here: %v", err)
	}
	storagetest.Run(t, func(t *testing.T) storage.Store { return newStore(t, fs.Options{Direct: true}) })
}

func TestNewRejectsBadRoot(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{filepath.Join(dir, "missing"), file} {
		if _, err := fs.New(root, fs.Options{}); err == nil {
			t.Errorf("New(%q) succeeded, want an error", root)
		}
	}
}

func TestKeysCannotEscapeRoot(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "root")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := fs.New(root, fs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"", "../escaped", "/abs", "a/../../escaped", "a//b", "./a", "a/.", "dir/"} {
		_, err := s.Put(t.Context(), key, strings.NewReader("x"), 1, storage.PutOptions{})
		if err == nil || !strings.Contains(err.Error(), "not a relative path") {
			t.Errorf("put %q: err %v, want a clear rejection", key, err)
		}
		if _, err := s.Stat(t.Context(), key); err == nil {
			t.Errorf("stat %q succeeded, want an error", key)
		}
	}
	if _, err := os.Stat(filepath.Join(parent, "escaped")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file appeared outside the root: %v", err)
	}
}

func TestDeletePrunesEmptyParents(t *testing.T) {
	root := t.TempDir()
	s, err := fs.New(root, fs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	for _, k := range []string{"a/b/c/obj", "a/keep"} {
		if _, err := s.Put(ctx, k, strings.NewReader("x"), 1, storage.PutOptions{Fsync: true}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Delete(ctx, "a/b/c/obj"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "a", "b")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a/b still there after deleting its only object: %v", err)
	}
	if err := s.Delete(ctx, "a/keep"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "a")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a still there after deleting its last object: %v", err)
	}
	if _, err := os.Stat(root); err != nil {
		t.Errorf("root was removed: %v", err)
	}
}

// Directories are not objects: List skips them, Stat and Get say not found,
// Delete leaves them alone.
func TestDirectoriesAreNotObjects(t *testing.T) {
	root := t.TempDir()
	s, err := fs.New(root, fs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "empty", "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	var got []string
	if err := s.List(ctx, "", func(oi storage.ObjectInfo) error { got = append(got, oi.Key); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Errorf("list: %q, want nothing", got)
	}
	if _, err := s.Stat(ctx, "empty"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("stat of a directory: %v, want ErrNotFound", err)
	}
	if _, err := s.Get(ctx, "empty", storage.GetOptions{}, &bytes.Buffer{}); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("get of a directory: %v, want ErrNotFound", err)
	}
	if err := s.Delete(ctx, "empty"); err != nil {
		t.Errorf("delete of a directory key: %v, want nil", err)
	}
	if _, err := os.Stat(filepath.Join(root, "empty", "dir")); err != nil {
		t.Errorf("delete removed a directory: %v", err)
	}
}

func TestGetSetsFirstByte(t *testing.T) {
	for _, direct := range []bool{false, true} {
		s, err := fs.New(t.TempDir(), fs.Options{Direct: direct})
		if err != nil {
			t.Logf("direct=%v: %v", direct, err)
			continue
		}
		ctx := t.Context()
		if _, err := s.Put(ctx, "k", bytes.NewReader(make([]byte, 5000)), 5000, storage.PutOptions{}); err != nil {
			t.Fatal(err)
		}
		var tr storage.Trace
		n, err := s.Get(ctx, "k", storage.GetOptions{Trace: &tr, Range: &storage.Range{Offset: 4097, Length: -1}}, &bytes.Buffer{})
		if err != nil || n != 5000-4097 {
			t.Fatalf("direct=%v: get = %d, %v; want %d bytes", direct, n, err, 5000-4097)
		}
		if tr.FirstByte.IsZero() {
			t.Errorf("direct=%v: Trace.FirstByte not set", direct)
		}
	}
}
