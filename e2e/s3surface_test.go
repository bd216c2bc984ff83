package e2e_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// tlsMinIO starts MinIO over https with a KMS key and a bucket "bench",
// and returns it with the flags and environment objbench needs.
func tlsMinIO(t *testing.T) (*testenv.MinIO, *s3.Store, []string, []string) {
	t.Helper()
	m := testenv.StartMinIOWith(t, testenv.MinIOOptions{TLS: true, KMS: true})
	st, err := s3.New(context.Background(), s3.Config{Endpoint: m.Endpoint, Bucket: "bench", PathStyle: true, CABundle: m.CAFile,
		AccessKey: m.AccessKey, SecretKey: m.SecretKey, Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.CreateBucket(context.Background()); err != nil {
		t.Fatal(err)
	}
	env := []string{"AWS_ACCESS_KEY_ID=" + m.AccessKey, "AWS_SECRET_ACCESS_KEY=" + m.SecretKey, "AWS_REGION=us-east-1"}
	return m, st, []string{"--endpoint-url", m.Endpoint, "--bucket", "bench", "--ca-bundle", m.CAFile}, env
}

// mainTotal is op's main-stage total in res (the first step's).
func mainTotal(t *testing.T, res *result.Run, op string) result.OpTotal {
	t.Helper()
	for _, st := range res.Steps {
		for _, s := range st.Streams {
			for _, tot := range s.Totals {
				if st.Kind == result.KindMain && tot.Op == op {
					return tot
				}
			}
		}
	}
	t.Fatalf("no main %s in the result", op)
	return result.OpTotal{}
}

// mainPhases is op's phases in the main stage of res.
func mainPhases(t *testing.T, res *result.Run, op string) (result.OpPhases, *result.Connections) {
	t.Helper()
	for _, st := range res.Steps {
		for _, s := range st.Streams {
			for _, p := range s.Phases {
				if st.Kind == result.KindMain && p.Op == op {
					return p, st.Connections
				}
			}
		}
	}
	t.Fatalf("no phases of main %s in the result", op)
	return result.OpPhases{}, nil
}

func phaseQuantile(t *testing.T, p result.OpPhases, phase string, q float64) int64 {
	t.Helper()
	for i, n := range result.PhaseNames {
		if n == phase {
			h, err := p.Histogram(i)
			if err != nil {
				t.Fatal(err)
			}
			if h == nil {
				return 0
			}
			return h.ValueAtQuantile(q)
		}
	}
	t.Fatalf("no phase %s", phase)
	return 0
}

// The S3 of today against MinIO over TLS: checksummed, encrypted, tagged
// uploads; GETs that validate checksums; conditional GETs answered 304
// (outcomes, not failures); SSE-C whose key never shows; every request's
// phases with TLS handshakes; a wrong CA refused with a clear error.
func TestS3SurfaceAgainstMinIOOverTLS(t *testing.T) {
	m, _, flags, env := tlsMinIO(t)
	dir := t.TempDir()
	common := []string{"--size", "4KiB", "--ops", "60", "--concurrency", "4"}
	runOp := func(t *testing.T, name string, args ...string) (*result.Run, run) {
		t.Helper()
		out := filepath.Join(dir, name+".json")
		r := objbench(t, dir, env, append(append(append([]string{args[0], "--out", out}, common...), flags...), args[1:]...)...).mustSucceed(t)
		return readResult(t, out), r
	}
	t.Run("put checksum trailer, SSE-KMS, tags, metadata", func(t *testing.T) {
		res, r := runOp(t, "put", "put", "--checksum", "crc32c/trailer", "--sse", "kms:"+m.KMSKeyID, "--tag", "team=storage", "--meta", "owner=bench",
			"--keepalive=false")
		if tot := mainTotal(t, res, "PUT"); tot.OK != 60 {
			t.Errorf("PUT: %d of %d ok, errors %v", tot.OK, tot.Ops, tot.Errors)
		}
		tg := res.Target
		if !strings.Contains(tg.Checksums, "crc32c trailer") || len(tg.Requests) == 0 || !strings.Contains(tg.Requests[0], "SSE aws:kms") ||
			!strings.Contains(tg.TLS, "verified (CA bundle") || tg.KeepAlive == nil || *tg.KeepAlive || tg.Addressing != "path" {
			t.Errorf("the result's target does not record the options: %+v", tg)
		}
		p, conns := mainPhases(t, res, "PUT")
		if p.Requests != 60 || p.NewConns != 60 || phaseQuantile(t, p, "tls", 50) == 0 || phaseQuantile(t, p, "connect", 50) == 0 {
			t.Errorf("a new connection per request over TLS: %d requests, %d new connections, tls p50 %d µs", p.Requests, p.NewConns, phaseQuantile(t, p, "tls", 50))
		}
		if conns == nil || conns.Opened < 60 || conns.TLSHandshakes < 60 {
			t.Errorf("connections of the step: %+v", conns)
		}
		if !strings.Contains(r.stdout, "Where the time goes") || !strings.Contains(r.stdout, "TLS handshakes") {
			t.Errorf("no phases table or TLS handshake count in the output:\n%s", r.stdout)
		}
	})
	t.Run("SSE-S3, storage class; multipart with a checksum trailer and SSE-KMS", func(t *testing.T) {
		res, _ := runOp(t, "sses3", "put", "--sse", "s3", "--storage-class", "STANDARD")
		if tot := mainTotal(t, res, "PUT"); tot.OK != 60 {
			t.Errorf("SSE-S3 PUTs: %d of %d ok, errors %v", tot.OK, tot.Ops, tot.Errors)
		}
		out := filepath.Join(dir, "mpu.json")
		objbench(t, dir, env, append([]string{"mixed", "--mix", "multipart=1", "--size", "12MiB", "--ops", "4", "--concurrency", "2",
			"--checksum", "crc32c/trailer", "--sse", "kms:" + m.KMSKeyID, "--out", out}, flags...)...).mustSucceed(t)
		if tot := mainTotal(t, readResult(t, out), "MULTIPART"); tot.OK != 4 || tot.Bytes != 4*12<<20 {
			t.Errorf("multipart uploads with a checksum trailer and SSE-KMS: %d of %d ok, %d bytes, errors %v", tot.OK, tot.Ops, tot.Bytes, tot.Errors)
		}
	})
	t.Run("get verifies checksums", func(t *testing.T) {
		res, _ := runOp(t, "getsum", "get", "--checksum", "sha256", "--verify-checksum")
		if tot := mainTotal(t, res, "GET"); tot.OK != 60 {
			t.Errorf("GET with checksum validation: %d of %d ok, errors %v", tot.OK, tot.Ops, tot.Errors)
		}
	})
	t.Run("conditional get answers 304", func(t *testing.T) {
		res, r := runOp(t, "cond", "get", "--conditional-get")
		tot := mainTotal(t, res, "GET")
		if tot.Ops != 60 || tot.Errors[storage.ClassNotMod] != 60 || tot.Latency.Count != 60 || tot.OpsPerSec == 0 {
			t.Errorf("conditional GETs of unchanged objects: %d ops, errors %v, %d timed, %.0f/s (304s are timed answers)",
				tot.Ops, tot.Errors, tot.Latency.Count, tot.OpsPerSec)
		}
		if !strings.Contains(r.stdout, "60 not_modified") {
			t.Errorf("the table does not name the 304s:\n%s", r.stdout)
		}
	})
	t.Run("SSE-C key never shown", func(t *testing.T) {
		key := make([]byte, 32)
		_, _ = rand.Read(key)
		keyFile := filepath.Join(dir, "ssec.key")
		if err := os.WriteFile(keyFile, key, 0o600); err != nil {
			t.Fatal(err)
		}
		res, r := runOp(t, "ssec", "get", "--sse", "c:"+keyFile)
		if tot := mainTotal(t, res, "GET"); tot.OK != 60 {
			t.Errorf("GET of SSE-C objects: %d of %d ok, errors %v", tot.OK, tot.Ops, tot.Errors)
		}
		raw, _ := os.ReadFile(filepath.Join(dir, "ssec.json"))
		for where, text := range map[string]string{"stdout": r.stdout, "stderr": r.stderr, "result": string(raw)} {
			noSecrets(t, where, text, string(key), b64(key), m.SecretKey)
		}
	})
	t.Run("wrong CA refused", func(t *testing.T) {
		other := testenv.StartMinIOWith(t, testenv.MinIOOptions{TLS: true})
		args := append([]string{"get", "--out", filepath.Join(dir, "no.json")}, common...)
		args = append(args, "--endpoint-url", m.Endpoint, "--bucket", "bench", "--ca-bundle", other.CAFile)
		r := objbench(t, dir, env, args...)
		if r.code == 0 || !strings.Contains(r.stderr, "not trusted") || !strings.Contains(r.stderr, "--ca-bundle") {
			t.Errorf("a wrong CA: exit %d, stderr:\n%s", r.code, r.stderr)
		}
	})
}

// The ops of the S3 surface in a workload file against MinIO: an init
// stage that creates a versioned bucket, copies, part copies, batch
// deletes, version listings and compare-and-swap PUTs; create-only PUTs
// of keys that exist answered 412 (outcomes, the run measured); cleanup
// removes every version and marker, dispose the bucket; an object
// outside the run is untouched.
func TestS3OpsWorkloadAgainstMinIO(t *testing.T) {
	_, st, flags, env := minioEnv(t)
	if _, err := st.Put(context.Background(), "keep/me", strings.NewReader("precious"), 8, storage.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	wl := filepath.Join(dir, "s3ops.yaml")
	testenv.WriteFiles(t, dir, map[string]string{"s3ops.yaml": `name: s3ops
stages:
  - kind: init
    buckets: [objbench-versioned]
  - kind: prepare
    concurrency: 4
    objects: {buckets: [objbench-versioned], prefix: v/, count: 40}
    size: 4KiB
    s3: {versioned: true}
  - kind: main
    concurrency: 4
    total_ops: 200
    objects: {buckets: [objbench-versioned], prefix: v/, count: 40}
    size: 4KiB
    s3: {versioned: true, batch_size: 5}
    ops: {put: 20, get: 20, stat: 10, copy: 10, part-copy: 10, delete-batch: 5, list-versions: 5, cas: 15, delete: 5}
  - kind: prepare
    name: taken
    concurrency: 2
    objects: {prefix: taken/, index: "r(1,10)"}
    size: 1KiB
  - kind: main
    name: create-only
    concurrency: 2
    total_ops: 20
    objects: {prefix: taken/, index: "u(1,10)"}
    size: 1KiB
    s3: {if_none_match: "*"}
    ops: {put: 100}
  - kind: cleanup
    streams:
      - objects: {buckets: [objbench-versioned], prefix: v/}
      - objects: {prefix: taken/, index: "r(1,10)"}
  - kind: dispose
`})
	out := filepath.Join(dir, "r.json")
	r := objbench(t, dir, env, append([]string{"run", wl, "--out", out}, flags...)...).mustSucceed(t)
	res := readResult(t, out)
	for _, op := range []string{"PUT", "GET", "STAT", "COPY", "PART-COPY", "DELETE-BATCH", "LIST-VERSIONS", "DELETE"} {
		if tot := mainTotal(t, res, op); tot.OK == 0 || tot.OK != tot.Ops {
			t.Errorf("%s: %d of %d ok, errors %v", op, tot.OK, tot.Ops, tot.Errors)
		}
	}
	if cas := mainTotal(t, res, "CAS"); cas.OK == 0 || cas.OK+cas.Errors[storage.ClassPrecond] != cas.Ops {
		t.Errorf("CAS: %d of %d ok, errors %v (only lost swaps may fail, as precondition_failed)", cas.OK, cas.Ops, cas.Errors)
	}
	var createOnly result.OpTotal
	for _, s := range res.Steps {
		if s.Stage == "create-only" {
			createOnly = s.Streams[0].Totals[0]
		}
	}
	if createOnly.Ops != 20 || createOnly.Errors[storage.ClassPrecond] != 20 {
		t.Errorf("create-only PUTs of keys that exist: %d ops, errors %v", createOnly.Ops, createOnly.Errors)
	}
	if !strings.Contains(r.stdout, "20 precondition_failed") {
		t.Errorf("the table does not name the 412s:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "versioning enabled on bucket objbench-versioned") && !strings.Contains(strings.Join(stepNotes(res), "\n"), "versioning enabled") {
		t.Errorf("init did not say it enabled versioning; notes %q", stepNotes(res))
	}
	if !res.CleanedUp || !strings.Contains(strings.Join(stepNotes(res), "\n"), "versions and delete markers under objbench/") {
		t.Errorf("not cleaned up (%s), or no versions removed: notes %q", res.CleanupNote, stepNotes(res))
	}
	if keys := listAll(t, st); len(keys) != 1 || keys[0] != "keep/me" {
		t.Errorf("bucket bench holds %v after the run, want only keep/me", keys)
	}
	vs, err := s3.New(context.Background(), s3.Config{Endpoint: flags[1], Bucket: "objbench-versioned", PathStyle: true,
		AccessKey: envValue(env, "AWS_ACCESS_KEY_ID"), SecretKey: envValue(env, "AWS_SECRET_ACCESS_KEY"), Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	defer vs.Close()
	if ok, err := vs.BucketExists(context.Background()); err != nil || ok {
		t.Errorf("the versioned bucket this run created is still there (%v, %v): its versions were not all removed", ok, err)
	}
}

func stepNotes(res *result.Run) []string {
	var out []string
	for _, s := range res.Steps {
		out = append(out, s.Notes...)
	}
	return out
}

func envValue(env []string, name string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
