package corpus_test

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/objbench/objbench/corpus"
	"github.com/objbench/objbench/internal/testenv"
)

// maildir writes a small tree of files with distinct contents and returns
// its root and the contents by relative path.
func maildir(t *testing.T) (string, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"cur/1.eml":        "From: a\n\nhello\n",
		"cur/2.eml":        strings.Repeat("long line\n", 500),
		"new/3.eml":        "From: c\n\nthird\n",
		"tmp/empty":        "",
		"top-level-note":   "note",
		"new/sub/deep.eml": "deep",
	}
	testenv.WriteFiles(t, dir, files)
	if err := os.Symlink(filepath.Join(dir, "cur/1.eml"), filepath.Join(dir, "link.eml")); err != nil {
		t.Fatal(err)
	}
	return dir, files
}

func read(t *testing.T, it corpus.Item) string {
	t.Helper()
	r, err := it.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestFromDirListsEveryRegularFile(t *testing.T) {
	dir, files := maildir(t)
	c, err := corpus.Load(context.Background(), "dir:"+dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	items := c.Items
	var names []string
	for _, it := range items {
		names = append(names, it.Name)
		if want, ok := files[it.Name]; !ok || read(t, it) != want || it.Size != int64(len(want)) {
			t.Errorf("item %s (%d bytes) does not hold the file's bytes", it.Name, it.Size)
		}
	}
	if len(items) != len(files) || !slices.IsSorted(names) {
		t.Errorf("got items %v, want the %d regular files in lexical order (the symlink skipped)", names, len(files))
	}
	if got := c.Bytes(); got != int64(len(files["cur/2.eml"])+len(files["cur/1.eml"])+len(files["new/3.eml"])+4+4) {
		t.Errorf("Bytes = %d", got)
	}

	some, err := corpus.FromDir(dir, 2)
	if err != nil || len(some.Items) != 2 || some.Items[0].Name != names[0] || some.Items[1].Name != names[1] {
		t.Errorf("max 2: got %v, %v; want the first two of %v", some, err, names)
	}
}

func TestFromDirErrors(t *testing.T) {
	if _, err := corpus.FromDir(t.TempDir(), 0); err == nil || !strings.Contains(err.Error(), "no files") {
		t.Errorf("an empty directory: %v", err)
	}
	if _, err := corpus.Load(context.Background(), "tar:/x", 0); err == nil || !strings.Contains(err.Error(), "tar:/x") {
		t.Errorf("an unknown source kind: %v", err)
	}
	if err := corpus.CheckSource("git:"); err == nil {
		t.Error("git: without a path passed the check")
	}
}

func TestFromGitReadsEveryBlob(t *testing.T) {
	emails := []string{"From: a\n\nfirst\n", "From: b\n\nsecond, longer " + strings.Repeat("x", 3000) + "\n", "From: c\n\nthird\n"}
	repo := testenv.GitRepo(t, emails)
	c, err := corpus.Load(context.Background(), "git:"+repo, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	items := c.Items
	var got []string
	for _, it := range items {
		body := read(t, it)
		// A blob's id is the SHA-1 of its header and bytes: proof the bytes
		// are exactly the blob's.
		sum := sha1.Sum([]byte(fmt.Sprintf("blob %d\x00%s", len(body), body)))
		if hex.EncodeToString(sum[:]) != it.Name || int64(len(body)) != it.Size {
			t.Errorf("blob %s: %d bytes that hash to %x", it.Name, len(body), sum)
		}
		got = append(got, body)
	}
	for _, e := range emails {
		if !slices.Contains(got, e) {
			t.Errorf("the email %.20q is missing from the corpus", e)
		}
	}
	if len(items) != len(emails) {
		t.Errorf("%d blobs, want %d (one per email)", len(items), len(emails))
	}

	two, err := corpus.FromGit(context.Background(), repo, 2)
	if err != nil || len(two.Items) != 2 || two.Items[0].Name != items[0].Name {
		t.Fatalf("max 2: %v, %v", two, err)
	}
	if err := two.Close(); err != nil {
		t.Error(err)
	}
	if _, err := two.Items[0].Open(); err == nil {
		t.Error("a blob of a closed corpus opened")
	}
	if _, err := corpus.FromGit(context.Background(), t.TempDir(), 0); err == nil {
		t.Error("a directory that is no repository gave no error")
	}
}

// TestGitBlobsAreReadWhenOpened: the corpus holds names and sizes only;
// many readers at once each get their blob's bytes, through one process.
func TestGitBlobsAreReadWhenOpened(t *testing.T) {
	var emails []string
	for i := range 60 {
		emails = append(emails, fmt.Sprintf("From: %d\n\n%s\n", i, strings.Repeat("y", 100*i)))
	}
	repo := testenv.GitRepo(t, emails)
	c, err := corpus.FromGit(context.Background(), repo, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var g errgroup.Group
	g.SetLimit(8)
	for range 3 {
		for _, it := range c.Items {
			g.Go(func() error {
				r, err := it.Open()
				if err != nil {
					return err
				}
				defer r.Close()
				body := make([]byte, it.Size)
				if _, err := r.ReadAt(body, 0); err != nil && err != io.EOF {
					return err
				}
				sum := sha1.Sum([]byte(fmt.Sprintf("blob %d\x00%s", len(body), body)))
				if hex.EncodeToString(sum[:]) != it.Name {
					return fmt.Errorf("blob %s: other bytes", it.Name)
				}
				return nil
			})
		}
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	if c.Bytes() == 0 || len(c.Items) < len(emails) {
		t.Errorf("%d items, %d bytes", len(c.Items), c.Bytes())
	}
}

// TestGitCorpusIsNotReadIntoMemory: listing a 24 MiB corpus of 3,000 blobs
// holds their names and sizes, not their bytes (the heap grows by far less
// than the corpus; it grew by all of it when blobs were read at load).
func TestGitCorpusIsNotReadIntoMemory(t *testing.T) {
	const n, size = 3000, 8 << 10
	repo := testenv.GitBlobs(t, n, size)
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	c, err := corpus.FromGit(context.Background(), repo, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	grew := int64(heap()) - int64(before)
	if len(c.Items) != n || c.Bytes() != n*size {
		t.Fatalf("%d items, %d bytes", len(c.Items), c.Bytes())
	}
	if grew > int64(c.Bytes())/10 {
		t.Errorf("listing the corpus grew the heap by %d bytes, for %d bytes of blobs", grew, c.Bytes())
	}
	t.Logf("heap grew %d bytes for %d blobs of %d bytes (%d per item)", grew, n, size, grew/n)
	runtime.KeepAlive(c)
}
