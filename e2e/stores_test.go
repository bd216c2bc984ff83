package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// TestStores is a short end-to-end pass on each store people run besides
// MinIO (which the other e2e tests use), started by the project's scripts:
// every op, ranged GETs and a mixed run over both HTTP clients, listing
// pages, a multipart transfer verified both ways and cleaned, a COSBench
// workload with its own buckets, wrong credentials; and after all of it
// the bucket holds only what was there before.
func TestStores(t *testing.T) {
	for _, name := range []string{"versitygw", "seaweedfs", "ceph-rgw"} {
		t.Run(name, func(t *testing.T) {
			srv := testenv.StartStore(t, name)
			t.Logf("%s %s at %s", srv.Name, srv.Version, srv.Endpoint)
			st := storeBucket(t, srv, "bench", "direct", 0)
			if _, err := st.Put(context.Background(), "keep/me", strings.NewReader("precious"), 8, storage.PutOptions{}); err != nil {
				t.Fatal(err)
			}
			env := []string{"AWS_ACCESS_KEY_ID=" + srv.AccessKey, "AWS_SECRET_ACCESS_KEY=" + srv.SecretKey, "AWS_REGION=us-east-1"}
			flags := []string{"--endpoint-url", srv.Endpoint, "--bucket", "bench"}
			for _, client := range []string{"direct", "std"} {
				t.Run(client, func(t *testing.T) {
					storeOps(t, env, append(flags, "--http-client", client))
					storeListPages(t, srv, client)
				})
			}
			t.Run("transfer", func(t *testing.T) { storeTransfer(t, env, flags[:2]) })
			t.Run("cosbench", func(t *testing.T) {
				storeCOSBench(t, env, flags[:2])
				bucketsGone(t, srv, "s3testqwer1", "s3testqwer2")
			})
			t.Run("probe", func(t *testing.T) { storeProbe(t, srv.Name, env, flags[:2]) })
			t.Run("wrong-credentials", func(t *testing.T) {
				bad := []string{"AWS_ACCESS_KEY_ID=" + srv.AccessKey, "AWS_SECRET_ACCESS_KEY=wrong-secret-123", "AWS_REGION=us-east-1"}
				r := objbench(t, t.TempDir(), bad, append([]string{"put", "--ops", "1"}, flags...)...)
				if r.code != 1 || !strings.Contains(r.stderr, "access denied") {
					t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and access denied", r.code, r.stderr)
				}
			})
			if keys := listAll(t, st); !slices.Equal(keys, []string{"keep/me"}) {
				t.Errorf("after every run the bucket holds %v; want only keep/me", keys)
			}
		})
	}
}

// storeBucket opens bucket on srv (created if missing) with client and a
// listing page size (0: the store's).
func storeBucket(t *testing.T, srv *testenv.Server, bucket, client string, page int) *s3.Store {
	t.Helper()
	st, err := s3.New(context.Background(), s3.Config{Endpoint: srv.Endpoint, Bucket: bucket, PathStyle: true,
		AccessKey: srv.AccessKey, SecretKey: srv.SecretKey, Region: "us-east-1", HTTPClient: client, ListPageSize: page})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.CreateBucket(context.Background()); err != nil {
		t.Fatal(err)
	}
	return st
}

// storeOps runs a mixed run (PUT, GET, STAT, DELETE, LIST) and ranged
// GETs: every op succeeds, and each run removes what it wrote.
func storeOps(t *testing.T, env, flags []string) {
	dir := t.TempDir()
	out := filepath.Join(dir, "mixed.json")
	objbench(t, dir, env, append([]string{"mixed", "--ops", "200", "--concurrency", "4", "--size", "4KiB", "--objects", "20", "--out", out}, flags...)...).mustSucceed(t)
	res := readResult(t, out)
	var total int64
	for _, op := range []string{"PUT", "GET", "STAT", "DELETE", "LIST"} {
		ops, ok, _ := mainOps(res, op)
		if ops == 0 || ops != ok {
			t.Errorf("mixed %s: %d ops, %d ok", op, ops, ok)
		}
		total += ops
	}
	if total != 200 || !res.CleanedUp {
		t.Errorf("mixed ran %d ops (want 200), cleaned up %v", total, res.CleanedUp)
	}
	out = filepath.Join(dir, "ranged.json")
	objbench(t, dir, env, append([]string{"get", "--ops", "50", "--concurrency", "2", "--size", "16KiB", "--objects", "5",
		"--range-size", "1KiB", "--out", out}, flags...)...).mustSucceed(t)
	if ops, ok, bytes := mainOps(readResult(t, out), "GET"); ops != 50 || ok != 50 || bytes != 50*1024 {
		t.Errorf("ranged GETs: %d ops, %d ok, %d bytes; want 50 of 1 KiB", ops, ok, bytes)
	}
}

// storeListPages lists 5 keys two to a page: every key, in order.
func storeListPages(t *testing.T, srv *testenv.Server, client string) {
	st := storeBucket(t, srv, "bench", client, 2)
	ctx := context.Background()
	var want []string
	for i := range 5 {
		k := fmt.Sprintf("pages-%s/%d", client, i)
		if _, err := st.Put(ctx, k, strings.NewReader(k), int64(len(k)), storage.PutOptions{}); err != nil {
			t.Fatal(err)
		}
		want = append(want, k)
	}
	got, err := storage.KeysUnder(ctx, st, "pages-"+client+"/")
	for _, k := range want {
		if err := st.Delete(ctx, k); err != nil {
			t.Error(err)
		}
	}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("listing two keys a page: %v (%v); want %v", got, err, want)
	}
}

// storeTransfer uploads three 6 MiB objects in 5 MiB parts (multipart),
// verified against what was written, reads them back verified, and
// cleans them up by their manifest.
func storeTransfer(t *testing.T, env, flags []string) {
	dir := t.TempDir()
	ob := func(args ...string) run { return objbench(t, dir, env, append(args, flags...)...) }
	r := ob("transfer", "gen:3x6MiB", "s3://bench/t/", "--part-size", "5MiB", "--seed", "3").mustSucceed(t)
	if !strings.Contains(r.stdout, "verified: 3 objects, 18874368 bytes") {
		t.Errorf("upload in parts:\n%s", r.stdout)
	}
	r = ob("transfer", "s3://bench/t/", "null:", "--part-size", "5MiB").mustSucceed(t)
	if !strings.Contains(r.stdout, "verified: 3 objects, 18874368 bytes") {
		t.Errorf("download:\n%s", r.stdout)
	}
	r = ob("clean", "s3://bench/t/").mustSucceed(t)
	if !strings.Contains(r.stdout, "cleaned s3://bench/t/: 1 manifests: 3 objects (18874368 bytes) deleted") {
		t.Errorf("clean:\n%s", r.stdout)
	}
}

// storeCOSBench runs COSBench's s3 sample (two buckets of its own, init,
// prepare, an 80/20 read/write main, cleanup, dispose) scaled down.
func storeCOSBench(t *testing.T, env, flags []string) {
	dir := t.TempDir()
	out := filepath.Join(dir, "cos.json")
	path, _ := filepath.Abs("../examples/cosbench/s3-80-20-two-buckets.xml")
	objbench(t, dir, env, append([]string{"run", "--scale", "0.005", "--out", out, path}, flags...)...).mustSucceed(t)
	res := readResult(t, out)
	var ops int64
	for _, s := range res.Steps {
		for _, sr := range s.Streams {
			for _, tot := range sr.Totals {
				ops += tot.Ops
				if tot.OK != tot.Ops {
					t.Errorf("%s %s %s: %d of %d ops failed: %v", s.Stage, sr.Name, tot.Op, tot.Ops-tot.OK, tot.Ops, tot.Errors)
				}
			}
		}
	}
	reads, _, _ := mainOps(res, "GET")
	writes, _, _ := mainOps(res, "PUT")
	if ops == 0 || reads == 0 || writes == 0 {
		t.Errorf("ran %d ops, %d main reads, %d main writes", ops, reads, writes)
	}
}

// bucketsGone checks whether the run's own buckets were removed (dispose).
func bucketsGone(t *testing.T, srv *testenv.Server, names ...string) {
	t.Helper()
	for _, name := range names {
		st, err := s3.New(context.Background(), s3.Config{Endpoint: srv.Endpoint, Bucket: name, PathStyle: true,
			AccessKey: srv.AccessKey, SecretKey: srv.SecretKey, Region: "us-east-1"})
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := st.BucketExists(context.Background()); ok || err != nil {
			t.Errorf("bucket %s is still there (%v) after the run's dispose", name, err)
		}
		st.Close()
	}
}

// storeQuirks are what each store's probe must find: the quirks and gaps
// a benchmark must know of (docs/stores.md), so a store that changes them
// is noticed.
var storeQuirks = map[string]map[string]string{
	"minio":    {"etag.put": "yes", "checksum.crc64nvme.trailer": "yes", "checksum.full-object": "yes", "versioning": "yes", "sse.s3": "no"},
	"embedded": {"etag.put": "yes", "checksum.crc64nvme.trailer": "yes", "versioning": "not checked", "sse.c": "yes"},
	// versitygw's posix backend: versioning needs --versioning-dir; SSE
	// headers are accepted without encrypting (not confirmed); DeleteObjects
	// takes more than 1000 keys.
	"versitygw": {"versioning": "no", "sse.s3": "no", "delete-objects.limit": "differs", "checksum.crc64nvme.trailer": "yes", "multipart.etag": "yes"},
	// SeaweedFS: SSE-S3 and SSE-KMS refused (500) without a KMS.
	"seaweedfs": {"sse.s3": "no", "sse.c": "yes", "versioning": "yes", "checksum.sha256.trailer": "yes"},
	// Ceph RGW 16: CompleteMultipartUpload answers an empty ETag; no
	// flexible checksums (trailers fail as a signature mismatch); SSE
	// refused over http.
	"ceph-rgw": {"multipart.etag": "differs", "checksum.crc32c.header": "no", "checksum.crc32c.trailer": "no", "checksum.full-object": "no",
		"checksum.md5.header": "yes", "versioning": "yes", "sse.s3": "no"},
}

// storeProbe runs objbench probe in a bucket of its own, which it
// removes, and checks the store's known quirks. With OBJBENCH_PROBE_DIR
// set (scripts/stores.sh) the table and JSON are kept there.
func storeProbe(t *testing.T, name string, env, flags []string) {
	dir := t.TempDir()
	out := filepath.Join(dir, "probe.json")
	r := objbench(t, dir, env, append([]string{"probe", "--out", out}, flags...)...).mustSucceed(t)
	if !strings.Contains(r.stdout, "cleaned up: every object the probe wrote is removed") {
		t.Errorf("probe did not clean up:\n%s", r.stdout)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Bucket        string
		BucketCreated bool `json:"bucket_created"`
		Findings      []struct{ Feature, Status, Detail string }
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range rep.Findings {
		got[f.Feature] = f.Status
	}
	for feature, want := range storeQuirks[name] {
		if got[feature] != want {
			t.Errorf("%s: probe says %s %s, known as %s", name, feature, got[feature], want)
		}
	}
	if len(rep.Findings) < 42 || (len(flags) > 0) != rep.BucketCreated {
		t.Errorf("%d findings; bucket %s created by the probe: %v", len(rep.Findings), rep.Bucket, rep.BucketCreated)
	}
	if d := os.Getenv("OBJBENCH_PROBE_DIR"); d != "" {
		_ = os.WriteFile(filepath.Join(d, name+".txt"), []byte(r.stdout), 0o644)
		_ = os.WriteFile(filepath.Join(d, name+".json"), raw, 0o644)
	}
}

// The probe's table for MinIO and the embedded server, as for the others.
func TestProbeMinIOAndEmbedded(t *testing.T) {
	t.Run("minio", func(t *testing.T) {
		_, _, flags, env := minioEnv(t)
		storeProbe(t, "minio", env, flags[:2])
	})
	t.Run("embedded", func(t *testing.T) { storeProbe(t, "embedded", nil, nil) })
}
