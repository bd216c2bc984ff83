package s3server_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/objbench/objbench/s3server"
)

const bucket = "bench"

// backends runs fn once against a memory server and once against a
// directory server.
func backends(t *testing.T, fn func(t *testing.T, s *s3server.Server)) {
	t.Helper()
	for _, name := range []string{"mem", "dir"} {
		t.Run(name, func(t *testing.T) {
			c := s3server.Config{Buckets: []string{bucket}}
			if name == "dir" {
				c.DataDir = t.TempDir()
			}
			fn(t, start(t, c))
		})
	}
}

func start(t testing.TB, c s3server.Config) *s3server.Server {
	t.Helper()
	s, err := s3server.Start(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	register(s)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Close(ctx); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return s
}

type response struct {
	status int
	header http.Header
	body   []byte
}

// servers maps the endpoints of the servers the tests started to their
// keys, for do to sign with.
var servers sync.Map // endpoint -> aws.Credentials

func register(s *s3server.Server) {
	servers.Store(s.Endpoint(), aws.Credentials{AccessKeyID: s.AccessKey(), SecretAccessKey: s.SecretKey()})
}

// do sends one request signed as an SDK signs it (AWS Signature Version
// 4, the AWS SDK for Go's own signer, UNSIGNED-PAYLOAD) with the keys of
// the server it goes to, and reads the whole response.
func do(t testing.TB, method, url string, body []byte, hdr map[string]string) response {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	hash := "UNSIGNED-PAYLOAD"
	for k, v := range hdr {
		req.Header.Set(k, v)
		if http.CanonicalHeaderKey(k) == "X-Amz-Content-Sha256" {
			hash = v
		}
	}
	sign(t, req, hash)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, url, err)
	}
	return response{resp.StatusCode, resp.Header, b}
}

func want(t testing.TB, what string, r response, status int) {
	t.Helper()
	if r.status != status {
		t.Fatalf("%s: status %d, want %d; body: %s", what, r.status, status, r.body)
	}
}

func payload(n int, seed uint64) []byte {
	b := make([]byte, n)
	var s [32]byte
	s[0] = byte(seed)
	_, _ = rand.NewChaCha8(s).Read(b)
	return b
}

func md5hex(b []byte) string {
	s := md5.Sum(b)
	return hex.EncodeToString(s[:])
}

func unquote(etag string) string { return strings.Trim(etag, `"`) }

func decodeXML(t testing.TB, b []byte, v any) {
	t.Helper()
	if err := xml.Unmarshal(b, v); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
}

// sign signs req with the keys of its server, as the AWS SDK for Go signs
// for S3 (the path as sent, escaped once).
func sign(t testing.TB, req *http.Request, payloadHash string) {
	t.Helper()
	if err := signReq(req, payloadHash); err != nil {
		t.Fatal(err)
	}
}

func signReq(req *http.Request, payloadHash string) error {
	var creds aws.Credentials
	servers.Range(func(ep, c any) bool {
		if strings.HasPrefix(req.URL.String(), ep.(string)) {
			creds = c.(aws.Credentials)
			return false
		}
		return true
	})
	if creds.AccessKeyID == "" {
		return fmt.Errorf("no server the tests started answers %s", req.URL)
	}
	req.Header.Set("X-Amz-Content-Sha256", payloadHash)
	s3Style := func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true }
	return v4.NewSigner(s3Style).SignHTTP(req.Context(), creds, req, payloadHash, "s3", "us-east-1", time.Now())
}
