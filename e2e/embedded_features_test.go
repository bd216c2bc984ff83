package e2e_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/report"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// featureRuns are the S3 features objbench measures, each a run that
// must succeed on the embedded server as on MinIO; a storage class the
// server does not serve stays a named "not implemented by this target".
func featureRuns(keyFile string) []struct {
	args  []string
	notOp string
} {
	runs := []struct {
		args  []string
		notOp string
	}{
		{[]string{"put", "--checksum", "md5"}, ""},
		{[]string{"get", "--verify-checksum"}, ""},
		{[]string{"put", "--if-none-match", "*"}, ""},
		{[]string{"get", "--conditional-get"}, ""},
		{[]string{"put", "--versioned"}, ""},
		{[]string{"get", "--versioned"}, ""},
		{[]string{"put", "--sse", "s3"}, ""},
		{[]string{"put", "--sse", "kms:bench-key"}, ""},
		{[]string{"get", "--sse", "c:" + keyFile}, ""},
		{[]string{"put", "--tag", "a=b", "--meta", "c=d", "--storage-class", "STANDARD_IA"}, ""},
		{[]string{"get", "--presign"}, ""},
		{[]string{"mixed", "--mix", "put=1,copy=1"}, ""},
		{[]string{"mixed", "--mix", "put=1,part-copy=1", "--size", "6MiB"}, ""},
		{[]string{"mixed", "--mix", "put=2,delete-batch=1"}, ""},
		{[]string{"mixed", "--mix", "put=1,list-versions=1", "--versioned"}, ""},
		{[]string{"put", "--batch-cleanup"}, ""},
		{[]string{"put", "--storage-class", "GLACIER"}, "PUT"},
	}
	for _, alg := range []string{"crc32", "crc32c", "crc64nvme", "sha1", "sha256"} {
		for _, form := range []string{alg, alg + "/trailer"} {
			runs = append(runs, struct {
				args  []string
				notOp string
			}{[]string{"put", "--checksum", form}, ""})
		}
	}
	return runs
}

// Every S3 feature objbench measures runs on `objbench run`'s embedded
// server and on `objbench server --tls` without a failure: every checksum
// in a header and as a trailer, verified GETs, create-only PUTs, versioned
// runs, SSE-S3, SSE-KMS and SSE-C, tags, copies, part copies and batch
// deletes. What the server does not serve is counted, not failed.
func TestEveryFeatureOnTheEmbeddedServer(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "ssec.key")
	key := make([]byte, 32)
	rand.Read(key)
	if err := os.WriteFile(keyFile, key, 0o600); err != nil {
		t.Fatal(err)
	}
	env, endpoint := startServer(t, "--tls")
	st := serverStore(t, env, endpoint)
	if err := st.SetVersioning(context.Background(), true); err != nil { // as a user would, with the aws CLI
		t.Fatal(err)
	}
	for _, target := range []struct {
		name  string
		env   []string
		flags []string
	}{{"run", nil, nil}, {"server --tls", env, []string{"--bucket", "shared"}}} {
		for _, c := range featureRuns(keyFile) {
			t.Run(target.name+"/"+strings.Join(c.args, " "), func(t *testing.T) {
				out := filepath.Join(t.TempDir(), "r.json")
				args := append(append([]string{}, c.args...), "--ops", "200", "--concurrency", "2", "--out", out)
				if !strings.Contains(strings.Join(c.args, " "), "--size") {
					args = append(args, "--size", "4KiB")
				}
				r := objbench(t, dir, target.env, append(args, target.flags...)...)
				if c.notOp != "" {
					if want := "not implemented by this target: main " + c.notOp; !strings.Contains(r.stdout, want) {
						t.Errorf("exit %d, want %q:\n%s\n%s", r.code, want, r.stdout, r.stderr)
					}
					return
				}
				r.mustSucceed(t)
				for _, s := range readResult(t, out).Steps {
					for _, str := range s.Streams {
						for _, tot := range str.Totals {
							done := tot.OK + tot.Errors[storage.ClassNotMod] + tot.Errors[storage.ClassPrecond] // outcomes, not failures
							if report.Failures(tot) != 0 || (s.Kind == result.KindMain && done == 0) {
								t.Errorf("%s %s: %d of %d ok, errors %v", s.Kind, tot.Op, tot.OK, tot.Ops, tot.Errors)
							}
						}
					}
				}
			})
		}
	}
	if keys := listAll(t, st); len(keys) != 0 {
		t.Errorf("the runs left %d objects in the server's bucket: %v", len(keys), keys[:min(len(keys), 5)])
	}
}

// The server refuses as S3 does, seen through objbench's client: a body
// that differs from its checksum (400 BadDigest: a checksum error), an
// SSE-C object read with another key (403), a create-only PUT of a taken
// key and a GET of a version that changed (412).
func TestServerRefusesAsS3(t *testing.T) {
	env, endpoint := startServer(t, "--tls")
	st := serverStore(t, env, endpoint)
	ctx := context.Background()
	data := bytes.Repeat([]byte("objbench"), 1000)
	for _, alg := range append(storage.Checksums(), storage.ChecksumMD5) {
		_, err := st.Put(ctx, "sum-"+string(alg), testenv.NewFlipping(data), int64(len(data)), storage.PutOptions{Checksum: alg})
		if !errors.Is(err, storage.ErrChecksum) || !strings.Contains(err.Error(), "BadDigest") {
			t.Errorf("%s: a body that is not its checksum's: %v, want BadDigest", alg, err)
		}
	}
	key := make([]byte, 32)
	rand.Read(key)
	enc := &storage.Encryption{Mode: storage.SSEC, CustomerKey: key}
	if _, err := st.Put(ctx, "ssec", bytes.NewReader(data), int64(len(data)), storage.PutOptions{Encryption: enc}); err != nil {
		t.Fatal(err)
	}
	other := &storage.Encryption{Mode: storage.SSEC, CustomerKey: make([]byte, 32)}
	var b bytes.Buffer
	if _, err := st.Get(ctx, "ssec", storage.GetOptions{Encryption: other}, &b); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("SSE-C with another key: %v, want 403", err)
	}
	if _, err := st.Get(ctx, "ssec", storage.GetOptions{Encryption: enc}, &b); err != nil || !bytes.Equal(b.Bytes(), data) {
		t.Errorf("SSE-C with its key: %v", err)
	}
	first, err := st.Put(ctx, "cas", bytes.NewReader(data), int64(len(data)), storage.PutOptions{IfNoneMatch: "*"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Put(ctx, "cas", bytes.NewReader(data), int64(len(data)), storage.PutOptions{IfNoneMatch: "*"}); !errors.Is(err, storage.ErrPreconditionFailed) {
		t.Errorf("create-only PUT of a taken key: %v, want 412", err)
	}
	if _, err := st.Put(ctx, "cas", bytes.NewReader(data[:10]), 10, storage.PutOptions{IfMatch: first.ETag}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(ctx, "cas", storage.GetOptions{IfMatch: first.ETag}, &b); !errors.Is(err, storage.ErrPreconditionFailed) {
		t.Errorf("GET if a replaced ETag: %v, want 412", err)
	}
}

// serverStore is objbench's S3 client on `objbench server`'s bucket.
func serverStore(t *testing.T, env []string, endpoint string) *s3.Store {
	t.Helper()
	st, err := s3.New(context.Background(), s3.Config{Endpoint: endpoint, Bucket: "shared", PathStyle: true, Region: "us-east-1",
		AccessKey: envValue(env, "AWS_ACCESS_KEY_ID"), SecretKey: envValue(env, "AWS_SECRET_ACCESS_KEY"), CABundle: envValue(env, "AWS_CA_BUNDLE")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
