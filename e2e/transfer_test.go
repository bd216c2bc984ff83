package e2e_test

import (
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/objbench/objbench/s3server"
)

// TestTransferRoundTrip uploads generated objects and a 40 MiB file in 5 MiB
// parts, verifies them, and downloads them back to null: and to a
// directory, byte for byte, against the embedded server and MinIO.
func TestTransferRoundTrip(t *testing.T) {
	for name, open := range map[string]func(t *testing.T) (flags, env []string){
		"embedded": func(t *testing.T) ([]string, []string) {
			ctx := context.Background()
			srv, err := s3server.Start(ctx, s3server.Config{Buckets: []string{"bench"}, Quiet: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = srv.Close(ctx) })
			return []string{"--endpoint-url", srv.Endpoint()},
				[]string{"AWS_ACCESS_KEY_ID=" + srv.AccessKey(), "AWS_SECRET_ACCESS_KEY=" + srv.SecretKey(), "AWS_REGION=us-east-1"}
		},
		"minio": func(t *testing.T) ([]string, []string) {
			_, _, flags, env := minioEnv(t)
			return flags[:2], env
		},
	} {
		t.Run(name, func(t *testing.T) {
			flags, env := open(t)
			transferRoundTrip(t, flags, env)
		})
	}
}

func transferRoundTrip(t *testing.T, flags, env []string) {
	dir := t.TempDir()
	ob := func(args ...string) run { return objbench(t, dir, env, append(args, flags...)...) }
	objbench(t, dir, nil, "gen", "file", "-q", "--size", "40MiB", "--seed", "7", "big").mustSucceed(t)
	objbench(t, dir, nil, "gen", "files", "-q", "--count", "20", "--size", "1MiB", "--seed", "9", "ref").mustSucceed(t)
	parts := []string{"--part-size", "5MiB", "--part-concurrency", "4"}

	r := ob(append([]string{"transfer", "gen:20x1MiB", "s3://bench/g/", "--seed", "9", "--out", "up.json"}, parts...)...).mustSucceed(t)
	if !strings.Contains(r.stdout, "verified: 20 objects, 20971520 bytes") {
		t.Errorf("gen upload:\n%s", r.stdout)
	}
	res := readResult(t, filepath.Join(dir, "up.json"))
	if tr := res.Steps[0].Transfer; tr == nil || !tr.Check.Verified || tr.Objects != 20 || tr.Bytes != 20<<20 {
		t.Errorf("up.json: %+v", tr)
	}
	r = ob(append([]string{"transfer", "big", "s3://bench/f/"}, parts...)...).mustSucceed(t)
	if !strings.Contains(r.stdout, "verified: 1 objects, 41943040 bytes") || !strings.Contains(r.stdout, "  8  ") {
		t.Errorf("file upload (8 parts):\n%s", r.stdout)
	}

	for _, c := range []struct{ src, dst string }{{"s3://bench/g/", "null:"}, {"s3://bench/g/", "g"}, {"s3://bench/f/", "f"}} {
		ob(append([]string{"transfer", c.src, c.dst}, parts...)...).mustSucceed(t)
	}
	same := func(a, b string) {
		t.Helper()
		x, errA := os.ReadFile(filepath.Join(dir, a))
		y, errB := os.ReadFile(filepath.Join(dir, b))
		if errA != nil || errB != nil || sha256.Sum256(x) != sha256.Sum256(y) {
			t.Errorf("%s and %s differ (%v, %v)", a, b, errA, errB)
		}
	}
	same("big", "f/big")
	same("ref/file-01", "g/file-01")
	same("ref/file-20", "g/file-20")

	if r := ob("transfer", "s3://bench/f/", "f"); r.code != 1 || !strings.Contains(r.stderr, "--force") {
		t.Errorf("download over an existing file: exit %d, %s", r.code, r.stderr)
	}
	// A second upload into the same prefix (seed 000: file10g, then
	// file100g) checks its own keys and reports the others.
	r = ob("transfer", "gen:2x1KiB", "s3://bench/g/", "-q")
	if r.code != 0 || !strings.Contains(r.stdout, "verified: 2 objects, 2048 bytes (2 ETags as written); 20 objects, 20971520 bytes already under the prefix were not written by this transfer") {
		t.Errorf("upload into a prefix holding 20 other objects: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
