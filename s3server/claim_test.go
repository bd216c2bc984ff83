package s3server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The data directory holds user files only if the user put them there:
// the server must refuse such a directory, and never delete what it did
// not write.
func TestDataDirIsClaimedNotTaken(t *testing.T) {
	foreign := t.TempDir()
	mine := filepath.Join(foreign, "bucket", "notes.txt")
	if err := os.MkdirAll(filepath.Dir(mine), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mine, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := newDirBlobs(foreign); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("a non-empty foreign directory was accepted (err %v)", err)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Fatal("refusing the directory touched its files")
	}

	fresh := filepath.Join(t.TempDir(), "data")
	d, err := newDirBlobs(fresh)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newDirBlobs(fresh); err != nil { // its own directory, again
		t.Fatalf("reopening its own directory: %v", err)
	}
	if err := d.createBucket("b"); err != nil {
		t.Fatal(err)
	}
	stray := filepath.Join(fresh, "b", "user-file")
	if err := os.WriteFile(stray, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := d.removeBucket("b"); err == nil {
		t.Error("removing a bucket holding a foreign file succeeded")
	}
	if _, err := os.Stat(stray); err != nil {
		t.Error("removing a bucket deleted a file the server did not write")
	}
}
