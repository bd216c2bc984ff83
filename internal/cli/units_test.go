package cli_test

import (
	"context"
	"strings"
	"testing"

	"github.com/objbench/objbench/s3server"
)

// Sizes: the help says which forms mean what, and a bare K, M, G or T,
// which tools read as 1000 or 1024, is refused the same way by every
// command that takes a size, naming both spellings.
func TestSizeUnitsSaidAndAmbiguousOnesRefused(t *testing.T) {
	for _, cmd := range [][]string{{"put"}, {"gen", "file"}, {"saturate"}, {"transfer"}} {
		_, out, _ := execute(t, nil, append(cmd, "--help")...)
		if !strings.Contains(out, "KiB, MiB, GiB, TiB are powers of 1024 (4KiB = 4096 B); KB, MB, GB, TB powers of 1000 (4KB = 4000 B)") {
			t.Errorf("%s --help does not say what the size units mean:\n%s", cmd, out)
		}
	}
	for _, args := range [][]string{
		{"put", "--size", "4K", "--ops", "1"},
		{"get", "--range-size", "4k", "--ops", "1"},
		{"put", "--bytes", "1G", "--ops", "1"},
		{"gen", "file", "--size", "4K", t.TempDir() + "/f"},
		{"saturate", "get", "--size", "4K"},
		{"transfer", "gen:4K", "s3://objbench/x"},
		{"transfer", "gen:1MiB", "s3://objbench/x", "--part-size", "5M"},
	} {
		code, _, errs := execute(t, nil, args...)
		if code != 2 || !strings.Contains(errs, "alone could mean powers of 1000 or of 1024: write ") {
			t.Errorf("%v: exit %d, %q; want 2, the size refused with both spellings", args, code, errs)
		}
	}
}

// --endpoint-url's help names both variables the aws CLI reads, and
// AWS_ENDPOINT_URL_S3 is read first, by the op commands and transfer alike.
func TestEndpointFromAWSEndpointURLS3(t *testing.T) {
	if _, out, _ := execute(t, nil, "put", "--help"); !strings.Contains(out, "(default: $AWS_ENDPOINT_URL_S3, else $AWS_ENDPOINT_URL;") {
		t.Errorf("--endpoint-url's help does not name AWS_ENDPOINT_URL_S3:\n%s", out)
	}
	ctx := context.Background()
	srv, err := s3server.Start(ctx, s3server.Config{Listen: "127.0.0.1:0", Buckets: []string{"bench"}, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(context.Background()) })
	t.Setenv("AWS_ACCESS_KEY_ID", srv.AccessKey()) // the SDK's credential chain reads the process environment
	t.Setenv("AWS_SECRET_ACCESS_KEY", srv.SecretKey())
	env := map[string]string{"AWS_ENDPOINT_URL_S3": srv.Endpoint(), "AWS_ENDPOINT_URL": "http://127.0.0.1:1"}
	for _, args := range [][]string{
		{"put", "--bucket", "bench", "--ops", "2", "-c", "1", "--size", "1KiB", "-q"},
		{"transfer", "gen:1KiB", "s3://bench/x", "-q"},
	} {
		if code, _, errs := execute(t, env, args...); code != 0 {
			t.Errorf("%v with AWS_ENDPOINT_URL_S3: exit %d: %s", args, code, errs)
		}
	}
}
