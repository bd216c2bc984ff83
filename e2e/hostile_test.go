package e2e_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/objbench/objbench/faultserver"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// hostileServer starts a fault server as cfg says, with the objects in
// precious put beside where objbench will work, and a store on it.
func hostileServer(t *testing.T, cfg faultserver.Config, precious ...string) (*faultserver.Server, *s3.Store, []string) {
	t.Helper()
	ctx := context.Background()
	srv, err := faultserver.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Close(cctx)
	})
	st, err := s3.New(ctx, s3.Config{Endpoint: srv.Endpoint(), Bucket: srv.Bucket(), PathStyle: true, Region: "us-east-1",
		AccessKey: "hostile", SecretKey: "hostile-secret"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for _, k := range precious {
		if _, err := st.Put(ctx, k, strings.NewReader("precious"), 8, storage.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return srv, st, []string{"--endpoint-url", srv.Endpoint(), "--bucket", srv.Bucket()}
}

var hostileEnv = []string{"AWS_ACCESS_KEY_ID=hostile", "AWS_SECRET_ACCESS_KEY=hostile-secret", "AWS_REGION=us-east-1"}

// A store lists, under the run's own prefix, keys that climb out of it
// (objbench/RUN/../../precious/a, and ..%2F..%2Fprecious%2Fb%2Fc), and
// sits behind a proxy that removes dot segments, so a DELETE of the first
// would delete precious/a. Cleanup deletes only keys it can prove are the
// run's: it deletes the run's own objects, refuses those two, names the
// fault and exits 1; everything outside the run's prefix survives.
func TestCleanupDeletesOnlyKeysItCanProve(t *testing.T) {
	precious := []string{"precious/a", "precious/b/c"}
	_, st, flags := hostileServer(t, faultserver.Config{ListLies: faultserver.ListLies{
		Escapes: []string{"precious/a", "precious/b/c"}, NormalizePaths: true}}, precious...)
	r := objbench(t, t.TempDir(), hostileEnv, append([]string{"put", "--ops", "20", "--size", "1KiB", "-q"}, flags...)...)
	if r.code != 1 || !strings.Contains(r.stderr, "left 4 listed keys it cannot prove are this run's") || !strings.Contains(r.stderr, "precious") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 naming the keys cleanup would not delete", r.code, r.stderr)
	}
	for _, k := range precious {
		if _, err := st.Stat(context.Background(), k); err != nil {
			t.Errorf("%s after objbench's cleanup: %v", k, err)
		}
	}
	var left []string
	for _, k := range listAll(t, st) {
		if strings.HasPrefix(k, "objbench/") && !strings.Contains(k, "..") {
			left = append(left, k)
		}
	}
	if len(left) > 0 {
		t.Errorf("the run's own objects were not deleted: %q", left)
	}
}

// A store whose listing answers truncated with the same continuation
// token for ever: cleanup stops at the second page, names the fault and
// exits 1 (before, it listed 20 pages a second until its five-minute
// timeout, and ignored SIGTERM meanwhile).
func TestEndlessListingIsAFault(t *testing.T) {
	_, _, flags := hostileServer(t, faultserver.Config{ListLies: faultserver.ListLies{Endless: true}})
	r := objbench(t, t.TempDir(), hostileEnv, append([]string{"put", "--ops", "20", "--size", "1KiB", "-q"}, flags...)...)
	if r.code != 1 || !strings.Contains(r.stderr, "does not advance") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 naming the listing that does not advance", r.code, r.stderr)
	}
}

// proc is an objbench process whose stderr is read line by line.
type proc struct {
	cmd   *exec.Cmd
	lines chan string
	done  chan error
}

// startArgv starts the binary (through argv0 and its args, so a shell
// can wrap it), with stderr lines sent on lines and the exit on done.
func startArgv(t *testing.T, argv []string) *proc {
	t.Helper()
	return startCmd(t, exec.Command(argv[0], argv[1:]...))
}

// startCmd starts cmd as startArgv does.
func startCmd(t *testing.T, cmd *exec.Cmd) *proc {
	t.Helper()
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), hostileEnv...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &proc{cmd: cmd, lines: make(chan string, 1000), done: make(chan error, 1)}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-s.done
	})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			select {
			case s.lines <- sc.Text():
			default: // nobody reads so far behind
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
		s.done <- cmd.Wait()
	}()
	return s
}

// await waits at most limit for a stderr line holding want.
func (s *proc) await(t *testing.T, want string, limit time.Duration) {
	t.Helper()
	deadline := time.After(limit)
	for {
		select {
		case l := <-s.lines:
			if strings.Contains(l, want) {
				return
			}
		case <-deadline:
			t.Fatalf("no stderr line with %q in %v", want, limit)
		}
	}
}

// exit waits at most limit for the process to end and returns its code.
func (s *proc) exit(t *testing.T, limit time.Duration) int {
	t.Helper()
	select {
	case err := <-s.done:
		s.done <- err // for the cleanup
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(limit):
		t.Fatalf("still running %v after it was told to stop", limit)
		return -1
	}
}

// awaitPuts waits at most a minute for srv to have stored n objects.
func awaitPuts(t *testing.T, srv *faultserver.Server, n int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for tick := time.NewTicker(10 * time.Millisecond); ; <-tick.C {
		got := 0
		for _, e := range srv.Events() {
			if e.Method == "PUT" && e.Status == 200 {
				got++
			}
		}
		if got >= n {
			tick.Stop()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d PUTs stored in a minute, want %d", got, n)
		}
	}
}

// stalledDeletes is a server that holds every DELETE for an hour: a
// cleanup that waits for them never ends by itself.
var stalledDeletes = faultserver.Config{Stall: faultserver.Stall{Every: 2 * time.Hour, For: time.Hour, Method: "DELETE"}}

// The first SIGTERM ends a run within its grace even when cleanup cannot
// finish (every DELETE is held for an hour): in-flight ops get --grace,
// cleanup another, then the run writes its result (interrupted, not
// cleaned up, the cut named), says so and exits 130.
func TestFirstSIGTERMEndsTheRunWithinItsGrace(t *testing.T) {
	srv, _, flags := hostileServer(t, stalledDeletes)
	out := filepath.Join(t.TempDir(), "r.json")
	s := startArgv(t, append([]string{binary, "put", "--duration", "1h", "--size", "1KiB", "--grace", "1s", "--out", out}, flags...))
	awaitPuts(t, srv, 10) // objects to clean up
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// Two graces of 1 s; a minute is for a loaded machine (before, cleanup
	// waited out its five-minute timeout).
	if code := s.exit(t, time.Minute); code != 130 {
		t.Errorf("exit %d after SIGTERM, want 130", code)
	}
	res := readResult(t, out)
	if !res.Interrupted || res.CleanedUp || !strings.Contains(res.CleanupNote, "cut short") {
		t.Errorf("interrupted %v, cleaned up %v, note %q; want interrupted, not cleaned up, the cut named",
			res.Interrupted, res.CleanedUp, res.CleanupNote)
	}
}

// Started with SIGINT ignored (cmd & in a script), objbench still takes
// the first SIGINT as an interrupt, and a second one ends it at once
// (before, Notify's end restored the inherited SIG_IGN: the second Ctrl-C
// did nothing and cleanup ran on).
func TestSecondSIGINTQuitsAtOnceWhenIgnoredAtStart(t *testing.T) {
	srv, _, flags := hostileServer(t, stalledDeletes)
	argv := append([]string{"/bin/sh", "-c", `trap "" INT; exec "$0" "$@"`, binary, "put", "--duration", "1h", "--size", "1KiB",
		"--grace", "1h", "--out", filepath.Join(t.TempDir(), "r.json")}, flags...)
	s := startArgv(t, argv)
	awaitPuts(t, srv, 10)
	if err := s.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	s.await(t, "deleting what this run wrote", time.Minute) // the first took: cleanup, whose DELETEs hang
	if err := s.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := s.exit(t, time.Minute); code != 130 {
		t.Errorf("exit %d after a second SIGINT, want 130", code)
	}
}

// The run's keys are refused mid-run (an admin revoked them): workers
// back off as in an outage instead of failing thousands of ops a second,
// the step records the refusal as one period, and once nothing but
// refusals came back for loadgen.RefusalLimit the run stops, says why and
// exits 1 (before: 12-17k errors in 3 s, and the run went on to its end).
func TestRefusalsBackOffAndStopTheRun(t *testing.T) {
	srv := startFaults(t, faultserver.Config{})
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	r := startObjbench(t, dir, faultEnv, "get", "--endpoint-url", srv.Endpoint(), "--bucket", srv.Bucket(), "--duration", "2m",
		"--concurrency", "8", "--objects", "20", "--size", "4KiB", "--out", out)
	r.waitFor(t, "main: step 1/1")
	srv.Revoke()
	res := r.wait(t)
	// RefusalLimit (3 s), then in-flight ops and a cleanup that is
	// refused too; a minute is for a loaded machine (the step is 2 min).
	res.sane(t, "get with its keys revoked", 1, time.Minute)
	if !strings.Contains(res.stderr, "was refused (access denied)") {
		t.Errorf("the run does not say it stopped for the refusals:\n%s", res.stderr)
	}
	run := accounted(t, "get", out, 0)
	// Eight workers backing off from 10 ms to 1 s fail about 9 ops each in
	// 3 s; 400 leaves room for a slow start, far from the storm's 12,000.
	errs := errorsOf(run)
	t.Logf("%d ops refused in the %d ms the run took", errs["http_403"], res.took.Milliseconds())
	if errs["http_403"] == 0 || errs["http_403"] > 400 {
		t.Errorf("http_403 errors: %d; want a few dozen, not a storm (%v)", errs["http_403"], errs)
	}
	var noted bool
	for _, st := range run.Steps {
		for _, n := range st.Notes {
			noted = noted || strings.Contains(n, "every op refused (access denied) from")
		}
	}
	if !noted {
		t.Errorf("no step notes the refusal as one period")
	}
}

// report and compare honour the first SIGTERM, also while they wait for
// their input (a pipe whose writer stalls): exit 130 at once (before,
// they read on, and a big file took 40 s after SIGTERM).
func TestReportAndCompareHonourTheFirstSIGTERM(t *testing.T) {
	good := filepath.Join(t.TempDir(), "good.json")
	objbench(t, t.TempDir(), nil, "put", "--target", "file://"+t.TempDir(), "--ops", "20", "--size", "1KiB", "-q", "--out", good).mustSucceed(t)
	for _, args := range [][]string{{"report", "/dev/stdin"}, {"compare", good, "/dev/stdin"}} {
		cmd := exec.Command(binary, args...)
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		s := startCmd(t, cmd)
		// More than a pipe holds: when the write returns, objbench has
		// read most of it and waits for the rest (its handler installed).
		head := `{"schema":10,"tool":{"name":"objbench"},"run_id":"` + strings.Repeat("x", 1<<20)
		if _, err := io.WriteString(in, head); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if code := s.exit(t, 30*time.Second); code != 130 {
			t.Errorf("%v: exit %d after SIGTERM, want 130", args, code)
		}
		in.Close()
	}
}
