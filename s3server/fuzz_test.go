package s3server_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/objbench/objbench/s3server"
)

// fuzzHandlers are the server's handler checking signatures and one
// accepting anything, made once per fuzz process.
func fuzzHandlers(f *testing.F) (auth, open http.Handler) {
	ctx := context.Background()
	auth, err := s3server.NewHandler(ctx, s3server.Config{Buckets: []string{bucket}, AccessKey: "AKFUZZ", SecretKey: "fuzz-secret"})
	if err != nil {
		f.Fatal(err)
	}
	open, err = s3server.NewHandler(ctx, s3server.Config{Buckets: []string{bucket}, NoAuth: true})
	if err != nil {
		f.Fatal(err)
	}
	return auth, open
}

// serveRaw parses raw as an HTTP/1.1 request (false if it is not one) and
// serves it with h, reading the whole answer.
func serveRaw(t *testing.T, h http.Handler, raw []byte) (*http.Response, bool) {
	req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(raw)))
	if err != nil {
		return nil, false
	}
	req.RemoteAddr = "127.0.0.1:1"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	_, _ = io.Copy(io.Discard, req.Body)
	return rec.Result(), true
}

// Any request the server can be sent: with signatures checked, none that
// the fuzzer makes (it does not know the secret) gets past the front door,
// and the refusal is S3's XML; without, the server answers it without
// panicking and without a 5xx, which would be the server's own fault.
func FuzzServeRequest(f *testing.F) {
	for _, s := range []string{
		"GET /bench/x HTTP/1.1\r\nHost: h\r\n\r\n",
		"PUT /bench/k HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello",
		"GET /bench?list-type=2&prefix=a%2F&max-keys=3 HTTP/1.1\r\nHost: h\r\n\r\n",
		"POST /bench/k?uploads HTTP/1.1\r\nHost: h\r\n\r\n",
		"PUT /bench/k?partNumber=1&uploadId=x HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n\r\nx",
		"DELETE /bench/k HTTP/1.1\r\nHost: h\r\n\r\n",
		"POST /bench?delete HTTP/1.1\r\nHost: h\r\nContent-Length: 58\r\n\r\n<Delete><Object><Key>k</Key></Object></Delete>          ",
		"PUT /bench/c HTTP/1.1\r\nHost: h\r\nX-Amz-Content-Sha256: STREAMING-UNSIGNED-PAYLOAD-TRAILER\r\nContent-Encoding: aws-chunked\r\n" +
			"X-Amz-Decoded-Content-Length: 5\r\nContent-Length: 46\r\n\r\n5\r\nhello\r\n0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n",
		"GET /bench/x HTTP/1.1\r\nHost: h\r\nAuthorization: AWS4-HMAC-SHA256 Credential=AKFUZZ/20260101/us-east-1/s3/aws4_request, " +
			"SignedHeaders=host;x-amz-date, Signature=00\r\nX-Amz-Date: 20260101T000000Z\r\n\r\n",
		"GET /bench/x?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKFUZZ%2F20260101%2Fus-east-1%2Fs3%2Faws4_request" +
			"&X-Amz-Date=20260101T000000Z&X-Amz-Expires=60&X-Amz-SignedHeaders=host&X-Amz-Signature=00 HTTP/1.1\r\nHost: h\r\n\r\n",
		"HEAD /bench/x HTTP/1.1\r\nHost: h\r\nRange: bytes=0-1\r\n\r\n",
		"PUT /newbucket HTTP/1.1\r\nHost: h\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	auth, open := fuzzHandlers(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		resp, ok := serveRaw(t, auth, raw)
		if !ok {
			return
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode < 400 || resp.StatusCode >= 500 {
			t.Fatalf("an unsigned request got %d past the signature check:\n%q\n%s", resp.StatusCode, raw, body)
		}
		head := bytes.HasPrefix(raw, []byte("HEAD ")) // S3 answers a HEAD without a body
		if !head && (!strings.Contains(string(body), "<Error>") || !strings.Contains(string(body), "<Code>")) {
			t.Fatalf("a refusal (%d) without S3's error XML: %s", resp.StatusCode, body)
		}
		resp, _ = serveRaw(t, open, raw)
		if resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented {
			body, _ := io.ReadAll(resp.Body)
			t.Fatalf("%d for\n%q\n%s", resp.StatusCode, raw, body)
		}
	})
}
