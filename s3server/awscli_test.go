package s3server_test

import (
	"bytes"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/objbench/objbench/s3server"
)

// TestAWSCLI drives the server with the real aws CLI: a 20 MiB upload is
// above its 8 MiB multipart threshold, so this covers multipart as the CLI
// does it (parallel parts, its checksum headers), downloads, listing and HEAD.
func TestAWSCLI(t *testing.T) {
	aws, err := exec.LookPath("aws")
	if err != nil {
		t.Skip("aws CLI not on PATH; scripts/install-tools.sh installs it into .venv-tools/bin")
	}
	if testing.Short() {
		t.Skip("the aws CLI takes a second per call; skipped with -short")
	}
	backends(t, func(t *testing.T, s *s3server.Server) {
		dir := t.TempDir()
		cli := awsCLI(t, aws, s, dir)
		data := payload(20<<20, 5)
		src, dst := filepath.Join(dir, "src.bin"), filepath.Join(dir, "dst.bin")
		if err := os.WriteFile(src, data, 0o644); err != nil {
			t.Fatal(err)
		}
		obj := "s3://" + bucket + "/cli/big file.bin"
		cli("s3", "cp", "--only-show-errors", src, obj)
		cli("s3", "cp", "--only-show-errors", obj, dst)
		got, err := os.ReadFile(dst)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("downloaded %d bytes that differ from the %d uploaded", len(got), len(data))
		}
		if head := cli("s3api", "head-object", "--bucket", bucket, "--key", "cli/big file.bin"); !strings.Contains(head, `-3\"`) {
			t.Errorf("head-object: %s; want a 3-part multipart ETag", head)
		}
		cli("s3api", "put-object", "--bucket", bucket, "--key", "cli/small", "--body", src)
		if ls := cli("s3", "ls", "s3://"+bucket+"/cli/"); !strings.Contains(ls, "20971520 big file.bin") ||
			!strings.Contains(ls, "20971520 small") {
			t.Errorf("s3 ls:\n%s", ls)
		}
		cli("s3", "rm", "--only-show-errors", "--recursive", "s3://"+bucket+"/cli/")
		if ls := list(t, s, url.Values{}); len(ls.Keys) != 0 {
			t.Errorf("after s3 rm: %q left", ls.Keys)
		}
	})
}

// awsCLI returns a function running the aws CLI against s, with the user's
// aws config and credentials kept out of the test.
func awsCLI(t *testing.T, aws string, s *s3server.Server, dir string) func(args ...string) string {
	env := clientEnv(dir, s.AccessKey(), s.SecretKey())
	return func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), aws, append([]string{"--endpoint-url", s.Endpoint()}, args...)...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("aws %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
}

// clientEnv is the environment of an aws CLI or boto3 run with these keys
// ("" leaves them out), the user's aws config and credentials kept out.
func clientEnv(dir, access, secret string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") {
			env = append(env, kv)
		}
	}
	if access != "" {
		env = append(env, "AWS_ACCESS_KEY_ID="+access, "AWS_SECRET_ACCESS_KEY="+secret)
	}
	return append(env, "AWS_DEFAULT_REGION=us-east-1",
		"AWS_CONFIG_FILE="+filepath.Join(dir, "no-config"),
		"AWS_SHARED_CREDENTIALS_FILE="+filepath.Join(dir, "no-credentials"),
		"AWS_EC2_METADATA_DISABLED=true")
}
