package e2e_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
)

// The embedded server answers what it lacks clearly (a GLACIER object,
// which S3 would not serve until restored): a named count "not implemented
// by this target", the op stopped after 100 in a row (no error storm), not
// a crash.
func TestEmbeddedServerNotImplementedIsCounted(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	r := objbench(t, dir, nil, "put", "--storage-class", "GLACIER", "--size", "4KiB", "--ops", "1000", "--concurrency", "2", "--out", out)
	if r.code != 1 || !strings.Contains(r.stdout, "not implemented by this target: main PUT conc 2") || !strings.Contains(r.stderr, "the target does not implement what the run asked for") {
		t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	tot := mainTotal(t, readResult(t, out), "PUT")
	if n := tot.Errors[storage.ClassNotImpl]; n < 100 || n > 110 || tot.Ops != n {
		t.Errorf("PUTs answered not implemented: %d of %d ops (want the op stopped after 100 in a row), errors %v", n, tot.Ops, tot.Errors)
	}
	for _, s := range readResult(t, out).Steps {
		if s.Kind == result.KindMain && s.Streams[0].StoppedBy != "not implemented by this target" {
			t.Errorf("main step stopped by %q", s.Streams[0].StoppedBy)
		}
	}
}

// `objbench server --tls` measured through the CLI with a new connection
// per request: every request's DNS/connect/TLS/send/wait/receive phases
// are in the table and the result, each request a TLS handshake.
func TestPhasesOverTLSAgainstServer(t *testing.T) {
	env, endpoint := startServer(t, "--tls")
	var ca string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "AWS_CA_BUNDLE="); ok {
			ca = v
		}
	}
	if !strings.HasPrefix(endpoint, "https://") || ca == "" {
		t.Fatalf("server --tls printed %v", env)
	}
	for _, client := range []string{"direct", "std"} { // both HTTP clients record the same phases
		t.Run(client, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "r.json")
			r := objbench(t, dir, env, "get", "--bucket", "shared", "--size", "4KiB", "--objects", "8", "--ops", "80",
				"--concurrency", "2", "--keepalive=false", "--http-client", client, "--out", out).mustSucceed(t)
			res := readResult(t, out)
			p, conns := mainPhases(t, res, "GET")
			if p.Requests != 80 || p.NewConns != 80 || conns == nil || conns.TLSHandshakes != 80 || conns.Reused != 0 {
				t.Errorf("GET phases: %d requests, %d new connections; step connections %+v", p.Requests, p.NewConns, conns)
			}
			for _, ph := range []string{"connect", "tls", "wait"} {
				if phaseQuantile(t, p, ph, 50) == 0 {
					t.Errorf("phase %s: p50 0 with a new TLS connection per request", ph)
				}
			}
			if res.Target.TLS == "" || !strings.Contains(res.Target.TLS, "verified") || res.Target.HTTPClient != client {
				t.Errorf("target TLS %q, client %q", res.Target.TLS, res.Target.HTTPClient)
			}
			var row string
			for _, l := range strings.Split(r.stdout, "\n") {
				if strings.HasPrefix(l, "main") && strings.Contains(l, " / ") {
					row = l
				}
			}
			if f := strings.Fields(row); len(f) < 12 || f[4] != "80" {
				t.Errorf("no 'where the time goes' row for main GET with 80 new connections:\n%s", r.stdout)
			}
		})
	}
}

// startServer runs `objbench server` with a bucket "shared" and args,
// and returns the environment it prints (credentials, endpoint, CA).
func startServer(t *testing.T, args ...string) (env []string, endpoint string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	srv := exec.CommandContext(ctx, binary, append([]string{"server", "--listen", "127.0.0.1:0", "--bucket", "shared"}, args...)...)
	out, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	// Stopped as a user stops it (an interrupt), so it removes what it
	// made: a server given no --cert-dir must leave no TLS files behind.
	srv.Cancel = func() error { return srv.Process.Signal(os.Interrupt) }
	srv.WaitDelay = 30 * time.Second
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = srv.Wait()
		if ca := envValue(env, "AWS_CA_BUNDLE"); ca != "" && !slices.Contains(args, "--cert-dir") {
			if _, err := os.Stat(filepath.Dir(ca)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the server left its TLS directory %s after an interrupt (%v)", filepath.Dir(ca), err)
			}
		}
	})
	sc := bufio.NewScanner(out)
	for endpoint == "" && sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, "export ") {
			env = append(env, strings.Fields(strings.TrimPrefix(line, "export "))...)
		}
		endpoint = envValue(env, "AWS_ENDPOINT_URL")
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return env, endpoint
}

// The shoot-out measures what each tool computes over an upload (a
// recorder on 127.0.0.1 sees its headers) and runs objbench with the
// same checksum: against MinIO, which verifies it, the run succeeds and
// the notes say objbench computed crc32 like the aws CLI.
func TestToolsChecksumsLikeWithLike(t *testing.T) {
	tools := "objbench"
	if _, err := exec.LookPath("aws"); err == nil || os.Getenv("OBJBENCH_REQUIRE_TOOLS") != "" {
		tools += ",aws"
	}
	_, st, flags, env := minioEnv(t)
	dir := t.TempDir()
	r := objbench(t, dir, env, append([]string{"tools", "--tools", tools, "--files", "2x1MiB", "--threads", "1", "--checksum", "crc32"}, flags...)...).mustSucceed(t)
	if !strings.Contains(r.stdout, "objbench computes over each upload: crc32 header") {
		t.Errorf("objbench's checksum not measured:\n%s", r.stdout)
	}
	if strings.Contains(tools, "aws") && !strings.Contains(r.stdout, "aws computes over each upload: crc32") {
		t.Errorf("the aws CLI's checksum not measured:\n%s", r.stdout)
	}
	if keys := listAll(t, st); len(keys) != 0 {
		t.Errorf("the shoot-out left %v in the bucket", keys)
	}
}

// Presigned GETs under a connection cap: every request waits for one of
// two connections (conn-wait) and is fetched by URL; a versioned run on a
// bucket that keeps no versions stops before writing anything.
func TestPresignCapAndVersionedRefusal(t *testing.T) {
	_, st, flags, env := minioEnv(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "p.json")
	objbench(t, dir, env, append([]string{"get", "--presign", "--max-conns-per-host", "2", "--size", "4KiB", "--ops", "200",
		"--concurrency", "8", "--out", out}, flags...)...).mustSucceed(t)
	res := readResult(t, out)
	if tot := mainTotal(t, res, "GET"); tot.OK != 200 {
		t.Errorf("presigned GETs: %d of %d ok, errors %v", tot.OK, tot.Ops, tot.Errors)
	}
	p, conns := mainPhases(t, res, "GET")
	if phaseQuantile(t, p, "conn-wait", 50) == 0 || conns == nil || conns.Opened > 2 || res.Target.MaxConnsPerHost != 2 {
		t.Errorf("8 workers on 2 connections: conn-wait p50 %d µs, connections %+v, recorded cap %d",
			phaseQuantile(t, p, "conn-wait", 50), conns, res.Target.MaxConnsPerHost)
	}
	if len(res.Target.Requests) == 0 || !strings.Contains(res.Target.Requests[0], "presign") {
		t.Errorf("the result does not record presigned GETs: %v", res.Target.Requests)
	}
	r := objbench(t, dir, env, append([]string{"put", "--versioned", "--ops", "10", "--out", filepath.Join(dir, "v.json")}, flags...)...)
	if r.code == 0 || !strings.Contains(r.stderr, "its bucket does not keep versions") {
		t.Errorf("a versioned run on an unversioned bucket: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	r = objbench(t, dir, env, append([]string{"get", "--versioned", "--ops", "10", "--out", filepath.Join(dir, "v2.json")}, flags...)...)
	if r.code == 0 || !strings.Contains(r.stderr, "its bucket does not keep versions") {
		t.Errorf("a versioned get on an unversioned bucket: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	r = objbench(t, dir, env, append([]string{"get", "--addressing", "virtual", "--ops", "10", "--out", filepath.Join(dir, "a.json")}, flags...)...)
	if r.code != 2 || !strings.Contains(r.stderr, `bad --addressing "virtual": virtual-host addressing needs an endpoint with a host name`) {
		t.Errorf("virtual-host addressing of an IP endpoint: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if keys := listAll(t, st); len(keys) != 0 {
		t.Errorf("the refused runs left %v", keys)
	}
}

// --batch-cleanup deletes the run's objects with DeleteObjects, 1,000 of
// the listed keys a request, on MinIO and on the embedded server, and
// leaves what the run did not write.
func TestBatchCleanup(t *testing.T) {
	_, st, flags, env := minioEnv(t)
	if _, err := st.Put(context.Background(), "keep/me", strings.NewReader("precious"), 8, storage.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, fl := range map[string][]string{"minio": flags, "embedded": nil} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "r.json")
			objbench(t, dir, env, append([]string{"put", "--size", "1KiB", "--ops", "1200", "--concurrency", "4", "--batch-cleanup", "--out", out}, fl...)...).mustSucceed(t)
			res := readResult(t, out)
			ops, ok, _ := res.OpTotals(result.KindCleanup, "DELETE-BATCH")
			if ops != 2 || ok != 2 || !res.CleanedUp {
				t.Errorf("cleanup of 1200 objects: %d DeleteObjects requests, %d ok, cleaned up %v (%s)", ops, ok, res.CleanedUp, res.CleanupNote)
			}
		})
	}
	if keys := listAll(t, st); len(keys) != 1 || keys[0] != "keep/me" {
		t.Errorf("the bucket holds %v after the runs, want only keep/me", keys)
	}
}
