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
	c, err := corpus.Open(context.Background(), "dir:"+dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	items := list(t, c)
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
	if err != nil {
		t.Fatal(err)
	}
	defer some.Close()
	if two := list(t, some); len(two) != 2 || two[0].Name != names[0] || two[1].Name != names[1] || some.Len() != 2 {
		t.Errorf("max 2: got %v; want the first two of %v", two, names)
	}
}

func list(t *testing.T, c *corpus.Corpus) []corpus.Item {
	t.Helper()
	items, err := c.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return items
}

func TestFromDirErrors(t *testing.T) {
	if _, err := corpus.FromDir(t.TempDir(), 0); err == nil || !strings.Contains(err.Error(), "no files") {
		t.Errorf("an empty directory: %v", err)
	}
	if _, err := corpus.Open(context.Background(), "tar:/x", 0); err == nil || !strings.Contains(err.Error(), "tar:/x") {
		t.Errorf("an unknown source kind: %v", err)
	}
	if err := corpus.CheckSource("git:"); err == nil {
		t.Error("git: without a path passed the check")
	}
}

func TestFromGitReadsEveryBlob(t *testing.T) {
	emails := []string{"From: a\n\nfirst\n", "From: b\n\nsecond, longer " + strings.Repeat("x", 3000) + "\n", "From: c\n\nthird\n"}
	repo := testenv.GitRepo(t, emails)
	c, err := corpus.Open(context.Background(), "git:"+repo, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	items := list(t, c)
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
	if err != nil {
		t.Fatal(err)
	}
	first2 := list(t, two)
	if len(first2) != 2 || first2[0].Name != items[0].Name || !slices.IsSortedFunc(items, func(a, b corpus.Item) int { return strings.Compare(a.Name, b.Name) }) {
		t.Fatalf("max 2: %v of %v", first2, items)
	}
	if err := two.Close(); err != nil {
		t.Error(err)
	}
	if _, err := first2[0].Open(); err == nil {
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
	items := list(t, c)
	var g errgroup.Group
	g.SetLimit(8)
	for range 3 {
		for _, it := range items {
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
	if c.Bytes() == 0 || len(items) < len(emails) {
		t.Errorf("%d items, %d bytes", len(items), c.Bytes())
	}
}

// TestGitCorpusIsNotHeldInMemory: opening a corpus of 20,000 blobs counts
// them and holds neither their bytes nor their list (the list alone was
// about 2 MiB when it was held: ~110 bytes an item); Each hands every one
// out, in id order, and holds nothing either.
func TestGitCorpusIsNotHeldInMemory(t *testing.T) {
	const n, size = 20_000, 100
	repo := testenv.GitBlobs(t, n, size)
	heap := func() int64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	before := heap()
	c, err := corpus.FromGit(context.Background(), repo, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	grew := heap() - before
	if st := c.Stats(); st.Objects != n || st.Bytes != n*size || st.Min != size || st.Max != size {
		t.Fatalf("stats %+v", st)
	}
	var got int64
	prev := ""
	err = c.Each(context.Background(), func(it corpus.Item) error {
		if it.Name <= prev {
			return fmt.Errorf("%s after %s: not in id order", it.Name, prev)
		}
		prev = it.Name
		got++
		return nil
	})
	if err != nil || got != n {
		t.Fatalf("Each: %d items, %v", got, err)
	}
	after := heap() - before
	if grew > 1<<20 || after > 1<<20 {
		t.Errorf("the heap grew by %d bytes when the corpus was opened, %d after a pass over its %d items", grew, after, n)
	}
	t.Logf("heap grew %d bytes when opened, %d after a pass, for %d blobs", grew, after, n)
	runtime.KeepAlive(c)
}

// TestFromDirInKeyOrderFromDisk: a directory of 2,500 files (more than one
// chunk of a directory read) and names whose key order is not the order of
// a walk ("b-x" < "b/c" < "b0"), sorted in runs on disk: every file comes
// once, in key order, and Close leaves no file behind.
func TestFromDirInKeyOrderFromDisk(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"b-x": "1", "b/c": "22", "b0": "333"}
	for i := range 2500 {
		files[fmt.Sprintf("cur/%d.eml", i)] = fmt.Sprint(i)
	}
	testenv.WriteFiles(t, dir, files)
	tmp := t.TempDir()
	c, err := corpus.FromDirSpilling(dir, 0, tmp, 4096)
	if err != nil {
		t.Fatal(err)
	}
	items := list(t, c)
	names := make([]string, 0, len(items))
	for _, it := range items {
		names = append(names, it.Name)
	}
	if len(items) != len(files) || !slices.IsSorted(names) || c.Len() != int64(len(files)) {
		t.Fatalf("%d items (Len %d), sorted %v; want %d", len(items), c.Len(), slices.IsSorted(names), len(files))
	}
	if i := slices.Index(names, "b/c"); i < 1 || names[i-1] != "b-x" || names[i+1] != "b0" || read(t, items[i]) != "22" {
		t.Errorf("b-x, b/c, b0 out of key order: %v", names[max(0, i-1):min(len(names), i+2)])
	}
	if corpus.SpilledRuns(c) == 0 {
		t.Error("nothing spilled: the test's runs are too large")
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 { // unlinked as they were made
		t.Errorf("files in the directory while spilled: %v", left)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}
