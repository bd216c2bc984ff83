package fs_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/fs"
)

func TestBucketIsADirectoryCreatedAndRemovedOnRequest(t *testing.T) {
	ctx := context.Background()
	parent := t.TempDir()
	b, err := fs.NewBucket(parent, "bench-1", fs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := b.BucketExists(ctx); ok || err != nil {
		t.Fatalf("exists before creation: %v, %v", ok, err)
	}
	if err := b.CreateBucket(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Put(ctx, "a/b", strings.NewReader("xy"), 2, storage.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(parent, "bench-1", "a", "b")); err != nil {
		t.Fatalf("object not under the bucket's directory: %v", err)
	}
	if err := b.DeleteBucket(ctx); err == nil {
		t.Fatal("deleting a bucket that holds objects must fail")
	}
	if err := b.Delete(ctx, "a/b"); err != nil {
		t.Fatal(err)
	}
	if err := b.DeleteBucket(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, _ := b.BucketExists(ctx); ok {
		t.Fatal("bucket still there after DeleteBucket")
	}
	for _, bad := range []string{"", "..", "a/b"} {
		if _, err := fs.NewBucket(parent, bad, fs.Options{}); err == nil {
			t.Errorf("NewBucket(%q) accepted a name that is not one directory", bad)
		}
	}
}
