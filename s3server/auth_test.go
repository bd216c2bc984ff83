package s3server_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/objbench/objbench/s3server"
)

// status sends req signed (by the SDK's signer) with creds at when, or
// unsigned when creds is empty, and returns the status and S3 error code.
func status(t *testing.T, req *http.Request, creds aws.Credentials, when time.Time) (int, string) {
	t.Helper()
	if creds.AccessKeyID != "" {
		req.Header.Set("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD")
		if err := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true }).
			SignHTTP(t.Context(), creds, req, "UNSIGNED-PAYLOAD", "s3", "us-east-1", when); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	_, rest, found := strings.Cut(string(b), "<Code>")
	code, _, _ := strings.Cut(rest, "</Code>")
	if !found {
		code = ""
	}
	return resp.StatusCode, code
}

// The server refuses what S3 refuses: no signature, an unknown key, a
// signature made with another secret, a request from too long ago; and
// takes a request the SDK signed with its keys.
func TestSignaturesAreChecked(t *testing.T) {
	s := start(t, s3server.Config{Buckets: []string{bucket}})
	u := s.Endpoint() + "/" + bucket + "/x"
	good := aws.Credentials{AccessKeyID: s.AccessKey(), SecretAccessKey: s.SecretKey()}
	for _, c := range []struct {
		name   string
		creds  aws.Credentials
		when   time.Time
		status int
		code   string
	}{
		{"signed", good, time.Now(), 404, "NoSuchKey"},
		{"unsigned", aws.Credentials{}, time.Now(), 403, "AccessDenied"},
		{"unknown key", aws.Credentials{AccessKeyID: "NOBODY", SecretAccessKey: s.SecretKey()}, time.Now(), 403, "InvalidAccessKeyId"},
		{"wrong secret", aws.Credentials{AccessKeyID: s.AccessKey(), SecretAccessKey: "wrong"}, time.Now(), 403, "SignatureDoesNotMatch"},
		{"20 minutes old", good, time.Now().Add(-20 * time.Minute), 403, "RequestTimeTooSkewed"},
	} {
		req, _ := http.NewRequestWithContext(t.Context(), "GET", u, nil)
		if st, code := status(t, req, c.creds, c.when); st != c.status || code != c.code {
			t.Errorf("%s: %d %s, want %d %s", c.name, st, code, c.status, c.code)
		}
	}
	// A body changed after its hash was signed is refused.
	req, _ := http.NewRequestWithContext(t.Context(), "PUT", u, strings.NewReader("forged"))
	req.Header.Set("X-Amz-Content-Sha256", "0000000000000000000000000000000000000000000000000000000000000000")
	if err := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true }).SignHTTP(t.Context(), good, req,
		req.Header.Get("X-Amz-Content-Sha256"), "s3", "us-east-1", time.Now()); err != nil {
		t.Fatal(err)
	}
	if st, _ := status(t, req, aws.Credentials{}, time.Time{}); st == 200 {
		t.Error("a body that is not the signed one was stored")
	}
}

// A presigned URL (query-string signature) works without any header, and
// not once it has expired.
func TestPresignedURLs(t *testing.T) {
	s := start(t, s3server.Config{Buckets: []string{bucket}})
	want(t, "put", do(t, "PUT", s.Endpoint()+"/"+bucket+"/shared", []byte("public"), nil), 200)
	good := aws.Credentials{AccessKeyID: s.AccessKey(), SecretAccessKey: s.SecretKey()}
	presign := func(expires string, when time.Time) string {
		req, _ := http.NewRequestWithContext(t.Context(), "GET", s.Endpoint()+"/"+bucket+"/shared?X-Amz-Expires="+expires, nil)
		u, _, err := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true }).
			PresignHTTP(t.Context(), good, req, "UNSIGNED-PAYLOAD", "s3", "us-east-1", when)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	fresh, _ := http.NewRequestWithContext(t.Context(), "GET", presign("60", time.Now()), nil)
	if st, code := status(t, fresh, aws.Credentials{}, time.Time{}); st != 200 {
		t.Errorf("presigned GET: %d %s", st, code)
	}
	old, _ := http.NewRequestWithContext(t.Context(), "GET", presign("60", time.Now().Add(-2*time.Minute)), nil)
	if st, code := status(t, old, aws.Credentials{}, time.Time{}); st != 403 || code != "AccessDenied" {
		t.Errorf("expired presigned GET: %d %s, want 403 AccessDenied", st, code)
	}
}

// The aws CLI and boto3 work with the server's keys and get 403 with
// others.
func TestRealClientsWithWrongKeys(t *testing.T) {
	aws, err := exec.LookPath("aws")
	if err != nil {
		t.Skip("aws CLI not on PATH")
	}
	s := start(t, s3server.Config{Buckets: []string{bucket}})
	dir := t.TempDir()
	cli := awsCLI(t, aws, s, dir)
	cli("s3api", "put-object", "--bucket", bucket, "--key", "k", "--body", writeTemp(t, dir, "v"))
	for _, bad := range [][2]string{{"NOBODY", s.SecretKey()}, {s.AccessKey(), "not-the-secret"}} {
		cmd := exec.CommandContext(context.Background(), aws, "--endpoint-url", s.Endpoint(), "s3api", "head-object", "--bucket", bucket, "--key", "k")
		cmd.Env = clientEnv(dir, bad[0], bad[1])
		if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "403") {
			t.Errorf("aws CLI with keys %s/…: %v\n%s", bad[0], err, out)
		}
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	script := `import boto3, sys
c = boto3.client("s3", endpoint_url=sys.argv[1], aws_access_key_id=sys.argv[2], aws_secret_access_key=sys.argv[3], region_name="us-east-1")
try:
    print(c.get_object(Bucket="` + bucket + `", Key="k")["Body"].read().decode())
except Exception as e:
    print("error", e)
`
	for _, c := range []struct{ ak, sk, want string }{{s.AccessKey(), s.SecretKey(), "v"}, {s.AccessKey(), "wrong", "SignatureDoesNotMatch"}} {
		cmd := exec.CommandContext(context.Background(), py, "-c", script, s.Endpoint(), c.ak, c.sk)
		cmd.Env = clientEnv(dir, "", "")
		out, _ := cmd.CombinedOutput()
		if !strings.Contains(string(out), c.want) {
			t.Errorf("boto3 with %s: %s, want %q", c.sk, out, c.want)
		}
	}
}

func writeTemp(t *testing.T, dir, content string) string {
	t.Helper()
	p := filepath.Join(dir, "body")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
