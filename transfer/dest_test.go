package transfer_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/mem"
	"github.com/objbench/objbench/transfer"
)

// A symbolic link already in the destination (DEST/link -> elsewhere)
// does not take a key's file out of it: the key dl/link/pwn is refused,
// named, and nothing is written elsewhere.
func TestDownloadFollowsNoLinkOutOfTheDestination(t *testing.T) {
	ctx := context.Background()
	st := mem.New()
	for _, k := range []string{"dl/link/pwn", "dl/a"} {
		if _, err := st.Put(ctx, k, strings.NewReader("data"), 4, storage.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	dest, elsewhere := t.TempDir(), t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(dest, "link")); err != nil {
		t.Fatal(err)
	}
	for _, force := range []bool{false, true} {
		p, err := transfer.DownloadPlan(ctx, st, "dl/", dest, force)
		if err != nil {
			t.Fatal(err)
		}
		_, err = transfer.Run(ctx, st, p, transfer.Options{Workers: 1, Force: force})
		_ = p.Close()
		if err == nil || !strings.Contains(err.Error(), `key "dl/link/pwn"`) || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("force %v: Run = %v; want the key refused, named", force, err)
		}
		if entries, _ := os.ReadDir(elsewhere); len(entries) > 0 {
			t.Fatalf("force %v: the download wrote %s outside the destination", force, entries[0].Name())
		}
	}
}
