package e2e_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// splitServer is `objbench server` run on its own, its bucket through the
// S3 client, and the environment the workers need.
func splitServer(t *testing.T) (string, storage.Store, []string) {
	t.Helper()
	ep := standaloneServer(t, "bench", "split-ak", "split-sk")
	st, err := s3.New(context.Background(), s3.Config{Endpoint: ep, Bucket: "bench", PathStyle: true,
		AccessKey: "split-ak", SecretKey: "split-sk", Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return ep, st, []string{"AWS_ACCESS_KEY_ID=split-ak", "AWS_SECRET_ACCESS_KEY=split-sk", "AWS_REGION=us-east-1"}
}

// workers runs one objbench per rank (ranks may repeat) side by side,
// with args(rank), and returns their runs in the order given.
func workers(t *testing.T, dir string, env []string, ranks []int, args func(rank int) []string) []run {
	t.Helper()
	out := make([]run, len(ranks))
	var wg sync.WaitGroup
	for i, r := range ranks {
		wg.Go(func() { out[i] = objbenchCmd(t, dir, env, 2*time.Minute, binary, args(r)...) })
	}
	wg.Wait()
	return out
}

// `put -c 2 --ops 300` over three processes once ran 1/1/0 workers and
// 100/100/100 ops: rank 2 did nothing and the merge said "3 of 3" with
// 200 PUTs. Every process now refuses the split before any request, exit
// 2, saying which values work; nothing is written.
func TestSplitWithAnIdleWorkerIsRefused(t *testing.T) {
	ep, st, env := splitServer(t)
	dir := t.TempDir()
	runs := workers(t, dir, env, []int{0, 1, 2}, func(r int) []string {
		return []string{"put", "--endpoint-url", ep, "--bucket", "bench", "--worker", fmt.Sprintf("%d/3", r), "--run-id", "idle",
			"-c", "2", "--ops", "300", "--size", "1KiB", "--out", "res/"}
	})
	for r, x := range runs {
		if x.code != 2 || !strings.Contains(x.stderr, "concurrency 2 over 3 workers leaves worker(s) 2 with none") ||
			!strings.Contains(x.stderr, "give concurrency at least 3") {
			t.Errorf("rank %d: exit %d\n%s", r, x.code, x.stderr)
		}
	}
	if left := listAll(t, st); len(left) != 0 {
		t.Errorf("a refused split wrote %v", left)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "res", "idle", "*")); len(files) != 0 {
		t.Errorf("a refused split wrote results: %v", files)
	}
	// --dry-run --worker shows one worker's share of a split that works.
	d := objbench(t, dir, nil, "run", "--dry-run", "--worker", "2/3", "-c", "4", "--ops", "300").mustSucceed(t)
	if !strings.Contains(d.stdout, "this process is worker 2/3") || !strings.Contains(d.stdout, "1 of 4 workers, 75 of 300 ops") {
		t.Errorf("dry run of worker 2/3:\n%s", d.stdout)
	}
}

// Ranks 0, 0, 1 and 2 of 3 (a launcher's mistake): both rank-0 processes
// once wrote the same keys and the same result file, and the merge said
// "3 of 3". Now one of them is refused before any load, naming both
// hosts; the run of the other three is whole, and its merge says that a
// second claimant was refused.
func TestDuplicateRankIsRefused(t *testing.T) {
	ep, st, env := splitServer(t)
	dir := t.TempDir()
	runs := workers(t, dir, env, []int{0, 0, 1, 2}, func(r int) []string {
		return []string{"put", "--endpoint-url", ep, "--bucket", "bench", "--worker", fmt.Sprintf("%d/3", r), "--run-id", "dup",
			"-c", "3", "--ops", "300", "--size", "1KiB", "--out", "res/", "--rendezvous-timeout", "60s"}
	})
	refused := 0
	for i, x := range runs {
		switch {
		case x.code == 2 && strings.Contains(x.stderr, "worker 0 is already running on host") && strings.Contains(x.stderr, "is a second worker 0"):
			refused++
			if i > 1 {
				t.Errorf("rank %d refused as a duplicate", i-1)
			}
			if strings.Contains(x.stdout, "PUT") {
				t.Errorf("the refused process printed a table:\n%s", x.stdout)
			}
		case x.code != 0:
			t.Errorf("process %d: exit %d\n%s", i, x.code, x.stderr)
		}
	}
	if refused != 1 {
		t.Fatalf("%d rank-0 processes refused, want exactly one", refused)
	}
	m := objbench(t, dir, nil, "merge", filepath.Join(dir, "res", "dup"), "-o", "merged.json").mustSucceed(t)
	if !strings.Contains(m.stdout, "claimed worker 0's rank and was refused") || !strings.Contains(m.stdout, "3 of 3 merged") {
		t.Errorf("merge of the run:\n%s", m.stdout)
	}
	merged := readResult(t, filepath.Join(dir, "merged.json"))
	var puts int64
	for _, st := range merged.Steps {
		for _, s := range st.Streams {
			for _, tot := range s.Totals {
				if tot.Op == "PUT" && st.Kind == "main" {
					puts += tot.OK
				}
			}
		}
	}
	if puts != 300 {
		t.Errorf("merged %d PUTs, want the run's 300", puts)
	}
	if left := listAll(t, st); len(left) != 0 {
		t.Errorf("left in the bucket: %v", left[:min(5, len(left))])
	}
}

// Two workers of three whose third never starts: each waits for it, says
// so while it waits, and exits 1 with a result file that says it failed
// and where (a worker once wrote one with no failure in it, shown as
// ENDED ok). The merge of their files says PARTIAL and exits 1.
func TestWorkersWhoseMeetingFailsSaySo(t *testing.T) {
	ep, _, env := splitServer(t)
	dir := t.TempDir()
	runs := workers(t, dir, env, []int{0, 1}, func(r int) []string {
		return []string{"get", "--endpoint-url", ep, "--bucket", "bench", "--worker", fmt.Sprintf("%d/3", r), "--run-id", "lonely",
			"-c", "3", "--ops", "30", "--objects", "10", "--size", "1KiB", "--out", "res/", "--rendezvous-timeout", "7s"}
	})
	for r, x := range runs {
		if x.code != 1 || !strings.Contains(x.stderr, "worker(s) 2 did not reach join within 7s") || !strings.Contains(x.stderr, "waiting at join for worker(s) 2") {
			t.Errorf("rank %d: exit %d\n%s", r, x.code, x.stderr)
		}
		w := readResult(t, filepath.Join(dir, "res", "lonely", fmt.Sprintf("worker-%d.json", r)))
		if w.Failure == nil || !strings.Contains(w.Failure.Cause, "did not reach join") || w.Failure.Step == "" {
			t.Errorf("rank %d's result: failure %+v; want the cause and the step it reached", r, w.Failure)
		}
	}
	m := objbench(t, dir, nil, "merge", filepath.Join(dir, "res", "lonely"), "-o", "merged.json")
	if first, _, _ := strings.Cut(m.stdout, "\n"); m.code != 1 || !strings.Contains(first, "PARTIAL RESULT 0/3") ||
		!strings.Contains(first, "worker 0 failed at joining the other workers") {
		t.Errorf("merge: exit %d\n%s\n%s", m.code, m.stdout, m.stderr)
	}
}

// A run whose workers kept their objects (--no-cleanup here; a worker
// that died is the same case) leaves them with its manifests; the merge
// with --clean deletes them through the store the result names, and the
// bucket is empty.
func TestMergeCleanDeletesWhatTheRunLeft(t *testing.T) {
	ep, st, env := splitServer(t)
	dir := t.TempDir()
	runs := workers(t, dir, env, []int{0, 1}, func(r int) []string {
		return []string{"put", "--endpoint-url", ep, "--bucket", "bench", "--worker", fmt.Sprintf("%d/2", r), "--run-id", "kept",
			"-c", "2", "--ops", "40", "--size", "1KiB", "--out", "res/", "--no-cleanup", "-q"}
	})
	for r, x := range runs {
		if x.code != 0 {
			t.Fatalf("rank %d: exit %d\n%s", r, x.code, x.stderr)
		}
	}
	if left := listAll(t, st); len(left) != 42 { // 40 objects and the two workers' manifests
		t.Fatalf("%d keys kept, want 40 objects and 2 manifests: %v", len(left), left[:min(5, len(left))])
	}
	m := objbench(t, dir, env, "merge", filepath.Join(dir, "res", "kept"), "-o", "merged.json", "--clean").mustSucceed(t)
	if !strings.Contains(m.stdout, "cleaned run kept in s3://bench at "+ep+": 40 objects") {
		t.Errorf("merge --clean:\n%s", m.stdout)
	}
	if left := listAll(t, st); len(left) != 0 {
		t.Errorf("left after merge --clean: %v", left[:min(5, len(left))])
	}
}
