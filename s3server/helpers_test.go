package s3server_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/xml"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

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

// do sends one request the way a minimal SigV4 client would (UNSIGNED-PAYLOAD,
// an Authorization header nobody checks) and reads the whole response.
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
	req.Header.Set("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD")
	req.Header.Set("X-Amz-Date", time.Now().UTC().Format("20060102T150405Z"))
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20250101/us-east-1/s3/aws4_request, "+
		"SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=0000")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
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
