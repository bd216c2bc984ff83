package e2e_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/objbench/objbench/storage"
)

func TestEveryOpAgainstMinIO(t *testing.T) {
	m, st, flags, env := minioEnv(t)
	if _, err := st.Put(context.Background(), "keep/me", strings.NewReader("precious"), 8, storage.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		op    string
		extra []string
		check func(t *testing.T, ops, ok, bytes int64)
	}{
		{"put", nil, wantOK(200)},
		{"get", nil, wantOK(200)},
		{"get", []string{"--range-size", "1KiB"}, func(t *testing.T, ops, ok, bytes int64) {
			wantOK(200)(t, ops, ok, bytes)
			if bytes != 200*1024 {
				t.Errorf("ranged GETs moved %d bytes, want %d", bytes, 200*1024)
			}
		}},
		{"stat", nil, wantOK(200)},
		{"delete", []string{"--objects", "100"}, wantOK(200)},
		{"list", []string{"--objects", "30"}, wantOK(200)},
	} {
		t.Run(c.op+strings.Join(c.extra, ""), func(t *testing.T) {
			out := filepath.Join(dir, c.op+".json")
			args := append([]string{c.op, "--size", "4KiB", "--ops", "100", "--concurrency", "1,4", "--out", out}, flags...)
			r := objbench(t, dir, env, append(args, c.extra...)...).mustSucceed(t)
			ops, ok, bytes := mainOps(readResult(t, out), strings.ToUpper(c.op))
			c.check(t, ops, ok, bytes)
			raw, _ := os.ReadFile(out)
			for where, text := range map[string]string{"stdout": r.stdout, "stderr": r.stderr, "result file": string(raw)} {
				noSecrets(t, where, text, m.SecretKey, m.AccessKey)
			}
		})
	}
	t.Run("mixed", func(t *testing.T) {
		out := filepath.Join(dir, "mixed.json")
		objbench(t, dir, env, append([]string{"mixed", "--ops", "300", "--concurrency", "4", "--out", out}, flags...)...).mustSucceed(t)
		res := readResult(t, out)
		var total int64
		for _, op := range []string{"PUT", "GET", "STAT", "DELETE", "LIST"} {
			ops, ok, _ := mainOps(res, op)
			if ops == 0 || ops != ok {
				t.Errorf("%s: %d ops, %d ok", op, ops, ok)
			}
			total += ops
		}
		if total != 300 {
			t.Errorf("mixed ran %d ops, want 300", total)
		}
	})
	if keys := listAll(t, st); len(keys) != 1 || keys[0] != "keep/me" {
		t.Errorf("after every run the bucket holds %v; want only keep/me", keys)
	}
}

func wantOK(n int64) func(t *testing.T, ops, ok, bytes int64) {
	return func(t *testing.T, ops, ok, bytes int64) {
		t.Helper()
		if ops != n || ok != n {
			t.Errorf("%d ops, %d ok; want %d, all ok", ops, ok, n)
		}
	}
}

func TestRunFailuresExitOneWithOneLine(t *testing.T) {
	m, _, flags, env := minioEnv(t)
	for _, c := range []struct {
		name string
		args []string
		env  []string
		want string
	}{
		{"wrong credentials", flags, []string{"AWS_ACCESS_KEY_ID=nobody", "AWS_SECRET_ACCESS_KEY=wrong-secret-123", "AWS_REGION=us-east-1"}, "access denied"},
		{"missing bucket", []string{"--endpoint-url", m.Endpoint, "--bucket", "nope"}, env, "bucket nope does not exist"},
		{"unreachable endpoint", []string{"--endpoint-url", "http://127.0.0.1:1", "--bucket", "bench"}, env, "cannot reach http://127.0.0.1:1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			r := objbench(t, dir, c.env, append([]string{"put", "--ops", "1"}, c.args...)...)
			if r.code != 1 || !strings.Contains(r.stderr, c.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and %q", r.code, r.stderr, c.want)
			}
			noSecrets(t, "stderr", r.stderr, "wrong-secret-123", m.SecretKey)
			if _, err := os.Stat(filepath.Join(dir, "objbench-results")); err == nil {
				if files, _ := filepath.Glob(filepath.Join(dir, "objbench-results", "*.json")); len(files) > 0 {
					t.Errorf("a failed start wrote a result file: %v", files)
				}
			}
		})
	}
}

func TestNoPrepareReadsObjectsKeptByEarlierRun(t *testing.T) {
	_, st, flags, env := minioEnv(t)
	dir := t.TempDir()
	first := filepath.Join(dir, "put.json")
	objbench(t, dir, env, append([]string{"put", "--ops", "20", "--concurrency", "2", "--no-cleanup", "--out", first}, flags...)...).mustSucceed(t)
	res := readResult(t, first)
	// The 20 objects, and the run's manifest beside them for clean --run.
	if res.CleanedUp || len(listAll(t, st)) != 21 || !slices.Contains(listAll(t, st), res.Target.Namespace+"_workers/manifest/rank-000000.json") {
		t.Fatalf("--no-cleanup should keep 20 objects and the run's manifest; bucket has %v", listAll(t, st))
	}
	prefix := res.Target.Namespace + "put/"
	second := filepath.Join(dir, "get.json")
	objbench(t, dir, env, append([]string{"get", "--no-prepare", "--prefix", prefix, "--ops", "50", "--out", second}, flags...)...).mustSucceed(t)
	if ops, ok, bytes := mainOps(readResult(t, second), "GET"); ok != 50 || ops != 50 || bytes != 50*64*1024 {
		t.Errorf("GET of kept objects: %d ops %d ok %d bytes", ops, ok, bytes)
	}
	if n := len(listAll(t, st)); n != 21 {
		t.Errorf("a --no-prepare read run changed the bucket: %d objects, want the 20 and the first run's manifest", n)
	}
}

func TestInterruptWritesPartialResultAndCleansUp(t *testing.T) {
	_, st, flags, env := minioEnv(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "res.json")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, append([]string{"get", "--duration", "1h", "--size", "4KiB", "--out", out}, flags...)...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() && !strings.Contains(sc.Text(), "main: step 1/1") {
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for sc.Scan() { // drain until exit
	}
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("want exit 130 after SIGINT, got %v", err)
	}
	res := readResult(t, out)
	if !res.Interrupted || !res.CleanedUp {
		t.Errorf("interrupted=%v cleaned_up=%v; want both", res.Interrupted, res.CleanedUp)
	}
	if ops, ok, _ := mainOps(res, "GET"); ops != ok {
		t.Errorf("in-flight ops must finish cleanly: %d ops, %d ok", ops, ok)
	}
	if keys := listAll(t, st); len(keys) != 0 {
		t.Errorf("bucket still holds %d objects after an interrupted run", len(keys))
	}
}
