package e2e_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/objbench/objbench/faultserver"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage/s3"
)

const faultAK, faultSK = "AKFAULTS", "faults-secret-key"

var faultEnv = []string{"AWS_ACCESS_KEY_ID=" + faultAK, "AWS_SECRET_ACCESS_KEY=" + faultSK, "AWS_REGION=us-east-1"}

// startFaults serves cfg (with the test's keys) for one test.
func startFaults(t *testing.T, cfg faultserver.Config) *faultserver.Server {
	t.Helper()
	cfg.AccessKey, cfg.SecretKey = faultAK, faultSK
	srv, err := faultserver.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(context.Background()) })
	return srv
}

// timedRun is objbench run to its end, with how long it took.
type timedRun struct {
	run
	took time.Duration
}

func objbenchTimed(t *testing.T, dir string, env []string, args ...string) timedRun {
	t.Helper()
	t0 := time.Now()
	r := objbench(t, dir, env, args...)
	return timedRun{r, time.Since(t0)}
}

// sane checks what every run must hold, whatever the faults: no panic,
// no hang past its bound, the exit code wanted.
func (r timedRun) sane(t *testing.T, what string, code int, within time.Duration) {
	t.Helper()
	if strings.Contains(r.stderr, "panic:") || strings.Contains(r.stderr, "goroutine ") {
		t.Errorf("%s panicked:\n%s", what, r.stderr)
	}
	if r.code != code {
		t.Errorf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", what, r.code, code, r.stdout, r.stderr)
	}
	if r.took > within {
		t.Errorf("%s took %v: past its bound of %v", what, r.took.Round(time.Millisecond), within)
	}
}

// accounted checks a result file: it is there and reads, and every op of
// every stream is ok or an error of a class, second by second: with an op
// bound, the main steps issued exactly it.
func accounted(t *testing.T, what, path string, opsBound int64) *result.Run {
	t.Helper()
	res, err := result.Read(path)
	if err != nil {
		t.Fatalf("%s: no readable result: %v", what, err)
	}
	for _, st := range res.Steps {
		for _, s := range st.Streams {
			var ops, ok, errs int64
			for _, sec := range s.Seconds {
				for _, o := range sec.Ops {
					ops += o.Ops
					ok += o.OK()
					for _, n := range o.Errors {
						errs += n
					}
				}
			}
			if ok < 0 || ok+errs != ops {
				t.Errorf("%s %s/%s: %d ops, %d ok, %d errors", what, st.Stage, s.Name, ops, ok, errs)
			}
			if st.Kind == result.KindMain && opsBound > 0 && s.StoppedBy == "ops" && ops != opsBound {
				t.Errorf("%s %s: %d ops recorded, %d issued (--ops)", what, st.Stage, ops, opsBound)
			}
		}
	}
	return res
}

// errorsOf sums a run's main-step errors by class.
func errorsOf(res *result.Run) map[string]int64 {
	out := map[string]int64{}
	for _, st := range res.Steps {
		if st.Kind != result.KindMain {
			continue
		}
		for _, s := range st.Streams {
			for _, tot := range s.Totals {
				for c, n := range tot.Errors {
					out[c] += n
				}
			}
		}
	}
	return out
}

// Every op command, run and transfer through a server that answers 503s,
// resets, truncates and corrupts bodies and stalls GETs: every op is
// accounted, nothing hangs past its grace, nothing panics, the result is
// always written, and the exit code is the documented one (errors do not
// fail a run; transfer fails when an object could not be moved).
func TestEveryCommandUnderFaults(t *testing.T) {
	srv := startFaults(t, faultserver.Config{Seed: 7, SlowDown: 0.05, Reset: 0.04, Truncate: 0.04, Corrupt: 0.04,
		Delay: faultserver.Delay{Base: time.Millisecond, Jitter: 2 * time.Millisecond},
		Stall: faultserver.Stall{Every: 2 * time.Second, For: 300 * time.Millisecond, Method: "GET"}})
	dir := t.TempDir()
	s3 := []string{"--endpoint-url", srv.Endpoint(), "--bucket", srv.Bucket()}
	const ops = 300
	for _, op := range []string{"put", "get", "stat", "delete", "list", "mixed", "run"} {
		t.Run(op, func(t *testing.T) {
			out := filepath.Join(dir, op+".json")
			args := append([]string{op, "--ops", "300", "--concurrency", "4", "--objects", "40", "--size", "8KiB",
				"--grace", "2s", "--out", out}, s3...)
			if op == "run" {
				args = append([]string{op, "--ops", "300", "--concurrency", "4", "--grace", "2s", "--out", out}, s3...)
			}
			r := objbenchTimed(t, dir, faultEnv, args...)
			r.sane(t, op, 0, time.Minute)
			res := accounted(t, op, out, ops)
			t.Logf("%s: errors %v", op, errorsOf(res))
		})
	}
	t.Run("transfer", func(t *testing.T) {
		down := filepath.Join(dir, "down")
		up := objbenchTimed(t, dir, faultEnv, "transfer", "gen:12x256KiB", "s3://"+srv.Bucket()+"/t/", "--endpoint-url", srv.Endpoint(),
			"--out", filepath.Join(dir, "up.json"))
		up.sane(t, "transfer up", up.code, time.Minute) // retried: it may succeed, or fail naming what
		if up.code != 0 && up.code != 1 {
			t.Errorf("transfer up: exit %d", up.code)
		}
		if _, err := os.Stat(filepath.Join(dir, "up.json")); err != nil {
			t.Errorf("transfer up wrote no result: %v", err)
		}
		dn := objbenchTimed(t, dir, faultEnv, "transfer", "s3://"+srv.Bucket()+"/t/", down, "--endpoint-url", srv.Endpoint())
		if dn.code != 0 && dn.code != 1 || strings.Contains(dn.stderr, "panic:") {
			t.Errorf("transfer down: exit %d\n%s", dn.code, dn.stderr)
		}
		t.Logf("transfer up exit %d, down exit %d: %s", up.code, dn.code, lastLine(dn.stderr))
	})
}

// firstFailure is the line that says why a run failed.
func firstFailure(stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "failed") || strings.Contains(l, "error") {
			return l
		}
	}
	return lastLine(stderr)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// liveRun is an objbench process the test acts on while it runs.
type liveRun struct {
	cmd     *exec.Cmd
	cancel  context.CancelFunc
	stdout  bytes.Buffer
	mu      sync.Mutex
	stderr  strings.Builder
	lines   chan string // stderr, line by line, until it ends
	scanned chan struct{}
	t0      time.Time
}

// startObjbench starts objbench with args (in dir, with extra env).
func startObjbench(t *testing.T, dir string, env []string, args ...string) *liveRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	r := &liveRun{cancel: cancel, lines: make(chan string, 1024), scanned: make(chan struct{}), t0: time.Now()}
	r.cmd = exec.CommandContext(ctx, binary, args...)
	r.cmd.Dir = dir
	r.cmd.Env = append(os.Environ(), env...)
	r.cmd.Stdout = &r.stdout
	pipe, err := r.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cancel)
	go func() {
		defer close(r.scanned)
		defer close(r.lines)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			r.mu.Lock()
			r.stderr.WriteString(sc.Text() + "\n")
			r.mu.Unlock()
			select {
			case r.lines <- sc.Text():
			default:
			}
		}
	}()
	return r
}

// waitFor waits until objbench says something containing s on stderr.
func (r *liveRun) waitFor(t *testing.T, s string) {
	t.Helper()
	for line := range r.lines {
		if strings.Contains(line, s) {
			return
		}
	}
	t.Fatalf("objbench ended without saying %q:\n%s", s, r.stderrText())
}

func (r *liveRun) stderrText() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stderr.String()
}

// wait waits for the process to end and returns how it ended.
func (r *liveRun) wait(t *testing.T) timedRun {
	t.Helper()
	go func() {
		for range r.lines { // keep draining
		}
	}()
	<-r.scanned
	err := r.cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("objbench: %v", err)
	}
	return timedRun{run{code, r.stdout.String(), r.stderrText()}, time.Since(r.t0)}
}

// The bucket is deleted under a running GET step: the ops that follow
// fail 404 NoSuchBucket, every one accounted; the step runs to its end, the
// cleanup cannot list a bucket that is gone, and the run says so and
// exits 1 (documented: a missing bucket fails the run), result written.
func TestBucketDeletedMidRun(t *testing.T) {
	srv := startFaults(t, faultserver.Config{})
	st := faultStore(t, srv)
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	r := startObjbench(t, dir, faultEnv, "get", "--endpoint-url", srv.Endpoint(), "--bucket", srv.Bucket(), "--duration", "3s",
		"--concurrency", "4", "--objects", "20", "--size", "4KiB", "--grace", "2s", "--out", out)
	r.waitFor(t, "main: step 1/1")
	ctx := context.Background()
	for _, k := range listAll(t, st) {
		if err := st.Delete(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.DeleteBucket(ctx); err != nil {
		t.Fatalf("delete the bucket: %v", err)
	}
	res := r.wait(t)
	res.sane(t, "get with its bucket deleted", 1, 3*time.Second+2*time.Second+30*time.Second)
	t.Logf("%s", firstFailure(res.stderr))
	run := accounted(t, "get", out, 0)
	if errs := errorsOf(run); errs["http_404"] == 0 {
		t.Errorf("no http_404 errors after the bucket went: %v", errs)
	}
	if !strings.Contains(res.stderr, "bucket not found") && !strings.Contains(res.stderr, "NoSuchBucket") {
		t.Errorf("the run does not say its bucket is gone:\n%s", res.stderr)
	}
}

// The keys are refused mid-run (deleted, as an admin would): the ops that
// follow fail 403, every one accounted, nothing hangs, the
// result is written, and the run exits 1 (its cleanup is refused too).
func TestCredentialsRefusedMidRun(t *testing.T) {
	srv := startFaults(t, faultserver.Config{})
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	r := startObjbench(t, dir, faultEnv, "mixed", "--endpoint-url", srv.Endpoint(), "--bucket", srv.Bucket(), "--duration", "3s",
		"--concurrency", "4", "--objects", "20", "--size", "4KiB", "--grace", "2s", "--out", out)
	r.waitFor(t, "main: step 1/1")
	srv.Revoke()
	res := r.wait(t)
	res.sane(t, "mixed with its keys refused", 1, 3*time.Second+2*time.Second+30*time.Second)
	t.Logf("%s", firstFailure(res.stderr))
	run := accounted(t, "mixed", out, 0)
	if errs := errorsOf(run); errs["http_403"] == 0 {
		t.Errorf("no http_403 errors after the keys were refused: %v", errs)
	}
	if !strings.Contains(res.stderr, "403") && !strings.Contains(res.stderr, "access denied") {
		t.Errorf("the run does not say its keys were refused:\n%s", res.stderr)
	}
}

// faultStore is a client of srv with the test's keys.
func faultStore(t *testing.T, srv *faultserver.Server) *s3.Store {
	t.Helper()
	st, err := s3.New(context.Background(), s3.Config{Endpoint: srv.Endpoint(), Bucket: srv.Bucket(), PathStyle: true,
		Region: "us-east-1", AccessKey: faultAK, SecretKey: faultSK})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// A file target's disk fills up: the writes that do not fit fail as I/O
// errors, every one accounted, the run goes on to its bound (errors do
// not stop a run), cleanup removes what it wrote, and the result (kept
// elsewhere) is written; exit 0.
func TestFileTargetDiskFull(t *testing.T) {
	disk := smallDisk(t, "1m")
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	r := objbenchTimed(t, dir, nil, "put", "--target", "file://"+disk, "--size", "64KiB", "--ops", "60", "--concurrency", "2", "--out", out)
	r.sane(t, "put on a full disk", 0, time.Minute)
	run := accounted(t, "put", out, 60)
	errs := errorsOf(run)
	if errs["io_error"] == 0 {
		t.Errorf("no io_error on a 1 MiB disk for 60 writes of 64 KiB: %v", errs)
	}
	left, _ := filepath.Glob(filepath.Join(disk, "*"))
	if len(left) != 0 {
		entries := []string{}
		_ = filepath.WalkDir(disk, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				entries = append(entries, p)
			}
			return nil
		})
		if len(entries) != 0 {
			t.Errorf("files left on the disk after cleanup: %v", entries)
		}
	}
	t.Logf("errors %v", errs)
}

// A download fills its disk: transfer fails naming the cause (exit 1),
// leaves no partly written file behind, and does not hang.
func TestDownloadDiskFull(t *testing.T) {
	disk := smallDisk(t, "1m")
	srv := startFaults(t, faultserver.Config{})
	dir := t.TempDir()
	objbenchTimed(t, dir, faultEnv, "transfer", "gen:8x256KiB", "s3://"+srv.Bucket()+"/d/", "--endpoint-url", srv.Endpoint()).
		sane(t, "upload", 0, time.Minute)
	r := objbenchTimed(t, dir, faultEnv, "transfer", "s3://"+srv.Bucket()+"/d/", filepath.Join(disk, "down"), "--endpoint-url", srv.Endpoint())
	r.sane(t, "download to a full disk", 1, time.Minute)
	t.Logf("%s", firstFailure(r.stderr))
	if !strings.Contains(r.stderr, "no space left on device") {
		t.Errorf("the failure does not name the full disk:\n%s", r.stderr)
	}
	var partial []string
	_ = filepath.WalkDir(disk, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil && info.Size() != 256<<10 {
				partial = append(partial, fmt.Sprintf("%s (%d bytes)", p, info.Size()))
			}
		}
		return nil
	})
	if len(partial) != 0 {
		t.Errorf("partly written files left behind: %v", partial)
	}
}
