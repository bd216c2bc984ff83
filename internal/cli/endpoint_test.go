package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/s3server"
)

// A bucket name S3 would refuse is refused before any I/O, with the rule
// named: a store answers it with a bare 400.
func TestBadBucketNameNamesTheRule(t *testing.T) {
	for _, c := range []struct{ bucket, rule string }{{"b", "3 to 63 characters"}, {"My_Bucket", "lowercase letters"}} {
		code, _, errs := execute(t, map[string]string{"AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "b"},
			"put", "--endpoint-url", "http://127.0.0.1:1", "--bucket", c.bucket, "--ops", "1")
		if code != 2 || !strings.Contains(errs, c.rule) || strings.Contains(errs, "cannot reach") {
			t.Errorf("--bucket %s: exit %d, %q; want 2 naming %q before any request", c.bucket, code, errs, c.rule)
		}
	}
}

// --profile uses the profile's endpoint_url, as the aws CLI does.
func TestProfileEndpointURLIsUsed(t *testing.T) {
	ctx := context.Background()
	srv, err := s3server.Start(ctx, s3server.Config{Listen: "127.0.0.1:0", Buckets: []string{"bench"}, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(context.Background()) })
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Setenv("AWS_CONFIG_FILE", write("config", "[profile lab]\nendpoint_url = "+srv.Endpoint()+"\nregion = us-east-1\n"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", write("credentials",
		"[lab]\naws_access_key_id = "+srv.AccessKey()+"\naws_secret_access_key = "+srv.SecretKey()+"\n"))
	out := filepath.Join(dir, "r.json")
	code, _, errs := execute(t, nil, "put", "--profile", "lab", "--bucket", "bench", "--ops", "5", "-c", "1", "--size", "1KiB", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	res, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if res.Target.Endpoint != srv.Endpoint() || res.Target.Embedded {
		t.Errorf("measured %+v, want the profile's endpoint %s", res.Target, srv.Endpoint())
	}
}
