package fs_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/fs"
)

// DropCache drops a file's pages from the page cache (mincore(2) finds
// none of them resident after it), and names a missing key not found.
func TestDropCacheEmptiesThePageCache(t *testing.T) {
	root := t.TempDir()
	var sfs unix.Statfs_t
	if err := unix.Statfs(root, &sfs); err == nil && sfs.Type == unix.TMPFS_MAGIC {
		t.Skip("the temporary directory is on tmpfs, whose pages are the files: nothing to drop")
	}
	st, err := fs.New(root, fs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const size = 4 << 20
	if _, err := st.Put(ctx, "a/b", bytes.NewReader(make([]byte, size)), size, storage.PutOptions{Fsync: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(ctx, "a/b", storage.GetOptions{}, io.Discard); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "a", "b")
	before := resident(t, path, size)
	if before == 0 {
		t.Fatal("a file just read has no page in the page cache: the count is wrong")
	}
	if err := st.DropCache(ctx, "a/b"); err != nil {
		t.Fatal(err)
	}
	if after := resident(t, path, size); after > before/8 || after > 64 {
		t.Errorf("%d of the file's pages in the page cache after the drop (%d before)", after, before)
	}
	if err := st.DropCache(ctx, "a/none"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("a missing key: %v, want not found", err)
	}
}

// resident counts the pages of path's first size bytes in the page cache.
func resident(t *testing.T, path string, size int) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	vec := make([]byte, (size+os.Getpagesize()-1)/os.Getpagesize())
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatal(errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}
