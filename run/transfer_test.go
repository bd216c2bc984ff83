package run_test

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/objbench/objbench/corpus"
	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/run"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/mem"
	"github.com/objbench/objbench/transfer"
)

// interrupter cancels the run at its after-th PUT, once it has seen the
// upload's records spilled to tmp (files unlinked as they are made: it
// looks among the process's open files).
type interrupter struct {
	storage.Store
	tmp     string
	after   int64
	puts    atomic.Int64
	spilled atomic.Bool
	cancel  context.CancelFunc
}

func (s *interrupter) Put(ctx context.Context, key string, body io.Reader, size int64, o storage.PutOptions) (storage.ObjectInfo, error) {
	if s.puts.Add(1) == s.after {
		s.spilled.Store(openUnder(s.tmp) > 0)
		s.cancel()
		return storage.ObjectInfo{}, ctx.Err()
	}
	return s.Store.Put(ctx, key, body, size, o)
}

// TestInterruptedCorpusTransferLeavesNoTempFile interrupts the upload of a
// corpus after more objects than one spill run holds (~36,000 records in
// 4 MiB): the run writes the manifest of what finished and leaves nothing
// in its temporary directory.
func TestInterruptedCorpusTransferLeavesNoTempFile(t *testing.T) {
	if testing.Short() {
		t.Skip("uploads 42,000 objects")
	}
	c, err := corpus.FromGit(context.Background(), testenv.GitBlobs(t, 45_000, 8), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	tmp := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := &interrupter{Store: mem.New(), tmp: tmp, after: 42_000, cancel: cancel}
	res, err := run.Transfer(ctx, result.Target{Kind: "mem"}, st, transfer.CorpusPlan(c, "mail/"),
		transfer.Options{TempDir: tmp, Workers: 4, Retries: -1}, run.TransferOptions{NoWatch: true})
	if !errors.Is(err, context.Canceled) || res == nil || !res.Interrupted {
		t.Fatalf("interrupted transfer: %v", err)
	}
	if !st.spilled.Load() {
		t.Fatal("nothing was spilled before the interrupt: the test proves nothing")
	}
	if tr := res.Steps[len(res.Steps)-1].Transfer; tr == nil || tr.Manifest == "" || tr.Objects < 30_000 {
		t.Errorf("the interrupted step: %+v", tr)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left in the temporary directory: %v", left)
	}
}

// openUnder counts the files this process holds open in dir, unlinked
// ones too (Linux: /proc/self/fd).
func openUnder(dir string) int {
	fds, _ := os.ReadDir("/proc/self/fd")
	n := 0
	for _, fd := range fds {
		if target, err := os.Readlink("/proc/self/fd/" + fd.Name()); err == nil && strings.HasPrefix(target, dir+string(os.PathSeparator)) {
			n++
		}
	}
	return n
}
