package transfer_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/objbench/objbench/corpus"
	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/mem"
	"github.com/objbench/objbench/transfer"
)

// spillRun is small enough that a test corpus of a few hundred objects
// spills many runs.
const spillRun = 2048

// gitPlan opens a corpus of n blobs of size bytes as a plan under prefix.
func gitPlan(t *testing.T, n, size int, prefix string) *transfer.Plan {
	t.Helper()
	c, err := corpus.FromGit(context.Background(), testenv.GitBlobs(t, n, size), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return transfer.CorpusPlan(c, prefix)
}

func empty(t *testing.T, dir string) {
	t.Helper()
	if left, err := os.ReadDir(dir); err != nil || len(left) != 0 {
		t.Errorf("left in %s: %v %v", dir, left, err)
	}
}

// TestCorpusLargerThanASpillRun uploads a corpus whose written records
// span many spill runs: it verifies with every ETag compared, its manifest
// records every key once in key order, and clean (its own work spilled
// too) deletes exactly those objects, not the one beside them; no work
// file is left.
func TestCorpusLargerThanASpillRun(t *testing.T) {
	ctx := context.Background()
	for name, st := range map[string]storage.Store{"mem": mem.New(), "embedded": embedded(t)} {
		t.Run(name, func(t *testing.T) {
			const n = 300
			tmp := t.TempDir()
			p := gitPlan(t, n, 64, "mail/")
			if _, err := st.Put(ctx, "mail/theirs", strings.NewReader("x"), 1, storage.PutOptions{}); err != nil {
				t.Fatal(err)
			}
			o := transfer.WithSpillRun(transfer.Options{TempDir: tmp, Workers: 8}, spillRun)
			res, err := transfer.Run(ctx, st, p, o)
			if err != nil || res.Objects != n || res.Written.Len() != n {
				t.Fatalf("%d objects, %d written: %v", res.Objects, res.Written.Len(), err)
			}
			c, err := transfer.Verify(ctx, st, p, res.Written)
			if err != nil || !c.OK() || c.Objects != n || c.Compared != n || c.Others != 1 || c.WantBytes != n*64 {
				t.Fatalf("verify: %+v %v", c, err)
			}
			key, err := transfer.WriteManifest(ctx, st, p, res, "run-1")
			if err != nil {
				t.Fatal(err)
			}
			if err := res.Close(); err != nil {
				t.Fatal(err)
			}
			empty(t, tmp)
			var body strings.Builder
			if _, err := st.Get(ctx, key, storage.GetOptions{}, &body); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(body.String()), "\n")
			if len(lines) != n+1 || !strings.Contains(lines[0], fmt.Sprintf(`"objects":%d`, n)) {
				t.Fatalf("manifest: %d lines, head %s", len(lines), lines[0])
			}
			for i := 2; i < len(lines); i++ {
				if lines[i] <= lines[i-1] {
					t.Fatalf("manifest line %d not in key order: %s after %s", i, lines[i], lines[i-1])
				}
			}
			cl, err := transfer.CleanSpilling(ctx, st, "mail/", false, tmp, spillRun)
			if err != nil || cl.Deleted != n || cl.Others != 1 || len(cl.Kept) != 0 {
				t.Fatalf("clean: %+v %v", cl, err)
			}
			if left := keys(t, st); strings.Join(left, " ") != "mail/theirs" {
				t.Errorf("after clean: %v", left)
			}
			empty(t, tmp)
		})
	}
}

// disorderly lists a prefix wrongly: backwards (last two swapped) or with
// a key outside it (foreign).
type disorderly struct {
	storage.Store
	foreign bool
}

func (d disorderly) List(ctx context.Context, prefix string, fn func(storage.ObjectInfo) error) error {
	var all []storage.ObjectInfo
	if err := d.Store.List(ctx, prefix, func(o storage.ObjectInfo) error { all = append(all, o); return nil }); err != nil {
		return err
	}
	if d.foreign {
		all = append(all, storage.ObjectInfo{Key: "elsewhere/x", Size: 1})
	} else if len(all) > 1 {
		all[len(all)-1], all[len(all)-2] = all[len(all)-2], all[len(all)-1]
	}
	for _, o := range all {
		if err := fn(o); err != nil {
			return err
		}
	}
	return nil
}

// TestListingOutOfOrderOrForeignIsRefused: Verify and Clean take no
// listing that goes backwards or strays outside the prefix: an error that
// is ErrListingFault, nothing counted, nothing deleted.
func TestListingOutOfOrderOrForeignIsRefused(t *testing.T) {
	ctx := context.Background()
	st := mem.New()
	p := upload(t, st, "gen:5x1KiB", "mail/", "run-1")
	before := keys(t, st)
	for _, foreign := range []bool{false, true} {
		bad := disorderly{st, foreign}
		if c, err := transfer.Verify(ctx, bad, p, nil); !errors.Is(err, storage.ErrListingFault) || c.Objects != 0 {
			t.Errorf("verify, foreign %v: %+v %v", foreign, c, err)
		}
		if _, err := transfer.Clean(ctx, bad, "mail/", false); !errors.Is(err, storage.ErrListingFault) {
			t.Errorf("clean, foreign %v: %v", foreign, err)
		}
	}
	if after := keys(t, st); strings.Join(after, " ") != strings.Join(before, " ") {
		t.Errorf("deleted after a faulty listing: %v, before %v", after, before)
	}
}

// cancelling cancels the run once after puts uploads have finished.
type cancelling struct {
	storage.Store
	puts   atomic.Int64
	after  int64
	cancel context.CancelFunc
}

func (c *cancelling) Put(ctx context.Context, key string, body io.Reader, size int64, o storage.PutOptions) (storage.ObjectInfo, error) {
	if c.puts.Add(1) == c.after {
		c.cancel()
		return storage.ObjectInfo{}, ctx.Err()
	}
	return c.Store.Put(ctx, key, body, size, o)
}

// TestInterruptedUploadLeavesNoTempFile interrupts a corpus upload that
// has spilled runs of what it wrote: the Result still records what
// finished (a manifest can be written from it), and no file is left in
// the directory, before or after it is closed.
func TestInterruptedUploadLeavesNoTempFile(t *testing.T) {
	tmp := t.TempDir()
	p := gitPlan(t, 200, 32, "mail/")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := &cancelling{Store: mem.New(), after: 150, cancel: cancel}
	res, err := transfer.Run(ctx, st, p, transfer.WithSpillRun(transfer.Options{TempDir: tmp, Workers: 4, Retries: -1}, spillRun))
	if !errors.Is(err, context.Canceled) || res.Objects >= 150 || res.Written.Len() != res.Objects {
		t.Fatalf("interrupted: %v, %d objects, %d written", err, res.Objects, res.Written.Len())
	}
	if transfer.SpilledRuns(res.Written) == 0 {
		t.Fatal("nothing spilled before the interrupt: the test's runs are too large")
	}
	empty(t, tmp)
	key, err := transfer.WriteManifest(context.Background(), st, p, res, "cut")
	if err != nil || key == "" {
		t.Fatalf("manifest after an interrupt: %q %v", key, err)
	}
	if err := res.Close(); err != nil {
		t.Fatal(err)
	}
	empty(t, tmp)
}
