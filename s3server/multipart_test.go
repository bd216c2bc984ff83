package s3server_test

import (
	"bytes"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/objbench/objbench/s3server"
)

func createUpload(t *testing.T, objURL string) string {
	t.Helper()
	r := do(t, "POST", objURL+"?uploads", nil, nil)
	want(t, "create multipart upload", r, 200)
	var res struct{ UploadId string }
	decodeXML(t, r.body, &res)
	return res.UploadId
}

func uploadPart(t *testing.T, objURL, id string, n int, data []byte, hdr map[string]string) string {
	t.Helper()
	r := do(t, "PUT", fmt.Sprintf("%s?partNumber=%d&uploadId=%s", objURL, n, id), data, hdr)
	want(t, fmt.Sprintf("upload part %d", n), r, 200)
	return r.header.Get("ETag")
}

func completeUpload(t *testing.T, objURL, id string, etags []string) response {
	t.Helper()
	var b strings.Builder
	b.WriteString("<CompleteMultipartUpload>")
	for i, e := range etags {
		fmt.Fprintf(&b, "<Part><PartNumber>%d</PartNumber><ETag>%s</ETag></Part>", i+1, e)
	}
	b.WriteString("</CompleteMultipartUpload>")
	return do(t, "POST", objURL+"?uploadId="+id, []byte(b.String()), nil)
}

// multipartETag is S3's ETag for an object uploaded in parts.
func multipartETag(parts ...[]byte) string {
	var sums []byte
	for _, p := range parts {
		s := md5.Sum(p)
		sums = append(sums, s[:]...)
	}
	s := md5.Sum(sums)
	return fmt.Sprintf("%s-%d", hex.EncodeToString(s[:]), len(parts))
}

func TestMultipart(t *testing.T) {
	backends(t, func(t *testing.T, s *s3server.Server) {
		u := s.Endpoint() + "/" + bucket + "/big/object"
		id := createUpload(t, u)
		parts := [][]byte{payload(5<<20, 1), payload(5<<20, 2), payload(1<<10, 3)}
		var etags []string
		for i, p := range parts {
			etag := uploadPart(t, u, id, i+1, p, nil)
			if unquote(etag) != md5hex(p) {
				t.Errorf("part %d ETag %s, want its md5", i+1, etag)
			}
			etags = append(etags, etag)
		}
		// Re-uploading a part replaces it.
		etags[1] = uploadPart(t, u, id, 2, parts[1], nil)
		r := completeUpload(t, u, id, etags)
		want(t, "complete", r, 200)
		wantETag := multipartETag(parts...)
		if !strings.Contains(string(r.body), wantETag) {
			t.Errorf("complete: %s, want ETag %s", r.body, wantETag)
		}
		r = do(t, "GET", u, nil, nil)
		want(t, "get", r, 200)
		if !bytes.Equal(r.body, bytes.Join(parts, nil)) {
			t.Fatal("get returned something other than the parts joined")
		}
		if got := unquote(r.header.Get("ETag")); got != wantETag {
			t.Errorf("get ETag %s, want %s", got, wantETag)
		}
		r = do(t, "HEAD", u, nil, nil)
		if got := unquote(r.header.Get("ETag")); got != wantETag || r.header.Get("X-Objbench-Etag") != "" {
			t.Errorf("head ETag %s (headers %v), want %s", got, r.header, wantETag)
		}
		r = do(t, "GET", u, nil, map[string]string{"Range": "bytes=5242870-5242889"})
		want(t, "ranged get across parts", r, 206)
		if !bytes.Equal(r.body, bytes.Join(parts, nil)[5242870:5242890]) {
			t.Error("ranged get across a part boundary returned the wrong bytes")
		}
		whole := bytes.Join(parts, nil)
		r = do(t, "GET", u, nil, map[string]string{"Range": "bytes=-100"})
		if !bytes.Equal(r.body, whole[len(whole)-100:]) {
			t.Error("suffix range in the last part returned the wrong bytes")
		}
		r = do(t, "GET", u, nil, map[string]string{"Range": "bytes=6000000-6000099"})
		if !bytes.Equal(r.body, whole[6000000:6000100]) {
			t.Error("range inside the second part returned the wrong bytes")
		}
		lr := list(t, s, map[string][]string{"prefix": {"big/"}})
		if len(lr.Sizes) != 1 || lr.Sizes[0] != 10<<20+1<<10 {
			t.Errorf("list: %+v", lr)
		}
	})
}

func TestMultipartAbortAndErrors(t *testing.T) {
	backends(t, func(t *testing.T, s *s3server.Server) {
		u := s.Endpoint() + "/" + bucket + "/aborted"
		id := createUpload(t, u)
		etag := uploadPart(t, u, id, 1, payload(1000, 1), nil)
		r := do(t, "GET", s.Endpoint()+"/"+bucket+"?uploads", nil, nil)
		want(t, "list uploads", r, 200)
		if !strings.Contains(string(r.body), id) {
			t.Errorf("list uploads: %s, want upload %s", r.body, id)
		}
		r = do(t, "GET", u+"?uploadId="+id, nil, nil)
		want(t, "list parts", r, 200)
		if !strings.Contains(string(r.body), "<PartNumber>1</PartNumber>") {
			t.Errorf("list parts: %s", r.body)
		}
		want(t, "complete with a wrong ETag", completeUpload(t, u, id, []string{`"0000"`}), 400)
		want(t, "abort", do(t, "DELETE", u+"?uploadId="+id, nil, nil), 204)
		want(t, "complete after abort", completeUpload(t, u, id, []string{etag}), 404)
		want(t, "get after abort", do(t, "GET", u, nil, nil), 404)
		want(t, "part for a missing upload", do(t, "PUT", u+"?partNumber=1&uploadId=nope", []byte("x"), nil), 404)
	})
}

// awsChunked frames data the way SDKs do: signed chunks, or unsigned chunks
// with a trailing checksum.
func awsChunked(data []byte, chunk int, signed bool) []byte {
	return awsChunkedSigned(data, chunk, signed, nil)
}

// awsChunkedSigned frames data as aws-chunked; signed chunks carry the
// signatures chunkSig gives (nil: placeholders of the right length).
func awsChunkedSigned(data []byte, chunk int, signed bool, chunkSig func([]byte) string) []byte {
	var b bytes.Buffer
	crc := crc32.ChecksumIEEE(data)
	trailer := base64.StdEncoding.EncodeToString([]byte{byte(crc >> 24), byte(crc >> 16), byte(crc >> 8), byte(crc)})
	sig := func(p []byte) string {
		if chunkSig == nil {
			return ";chunk-signature=" + strings.Repeat("a", 64)
		}
		return ";chunk-signature=" + chunkSig(p)
	}
	for len(data) > 0 {
		n := min(chunk, len(data))
		fmt.Fprintf(&b, "%x", n)
		if signed {
			b.WriteString(sig(data[:n]))
		}
		b.WriteString("\r\n")
		b.Write(data[:n])
		b.WriteString("\r\n")
		data = data[n:]
	}
	if signed {
		b.WriteString("0" + sig(nil) + "\r\n\r\n")
	} else {
		b.WriteString("0\r\nx-amz-checksum-crc32:" + trailer + "\r\n\r\n")
	}
	return b.Bytes()
}

func TestAWSChunkedBodies(t *testing.T) {
	backends(t, func(t *testing.T, s *s3server.Server) {
		data := payload(200_000, 9)
		for _, tc := range []struct {
			name, sha string
			signed    bool
		}{
			{"unsigned trailer", "STREAMING-UNSIGNED-PAYLOAD-TRAILER", false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				hdr := map[string]string{
					"X-Amz-Content-Sha256":         tc.sha,
					"Content-Encoding":             "aws-chunked",
					"X-Amz-Decoded-Content-Length": fmt.Sprint(len(data)),
					"X-Amz-Trailer":                "x-amz-checksum-crc32",
				}
				u := s.Endpoint() + "/" + bucket + "/chunked-" + strings.ReplaceAll(tc.name, " ", "-")
				r := do(t, "PUT", u, awsChunked(data, 65536, tc.signed), hdr)
				want(t, "put", r, 200)
				r = do(t, "GET", u, nil, nil)
				if !bytes.Equal(r.body, data) || r.header.Get("Content-Encoding") != "" {
					t.Fatalf("get: %d bytes (want %d), Content-Encoding %q", len(r.body), len(data), r.header.Get("Content-Encoding"))
				}
				id := createUpload(t, u)
				etag := uploadPart(t, u, id, 1, awsChunked(data, 8192, tc.signed), hdr)
				want(t, "complete", completeUpload(t, u, id, []string{etag}), 200)
				if r = do(t, "GET", u, nil, nil); !bytes.Equal(r.body, data) {
					t.Fatalf("get after multipart: %d bytes, want %d", len(r.body), len(data))
				}
			})
		}
		bad := map[string]string{"X-Amz-Content-Sha256": "STREAMING-UNSIGNED-PAYLOAD-TRAILER", "X-Amz-Decoded-Content-Length": "5"}
		want(t, "malformed chunks", do(t, "PUT", s.Endpoint()+"/"+bucket+"/bad", []byte("zz\r\nhello"), bad), 400)
	})
}

// The aws-chunked body may also arrive with HTTP chunked transfer encoding
// and no Content-Length, as botocore sends it over HTTPS.
func TestAWSChunkedOverTransferEncoding(t *testing.T) {
	s := start(t, s3server.Config{Buckets: []string{bucket}})
	data := payload(100_000, 4)
	u := s.Endpoint() + "/" + bucket + "/te"
	req, _ := http.NewRequestWithContext(t.Context(), "PUT", u, struct{ *bytes.Reader }{bytes.NewReader(awsChunked(data, 10000, false))})
	req.ContentLength = -1 // unknown: the client uses Transfer-Encoding: chunked
	req.Header.Set("X-Amz-Content-Sha256", "STREAMING-UNSIGNED-PAYLOAD-TRAILER")
	req.Header.Set("Content-Encoding", "aws-chunked")
	req.Header.Set("X-Amz-Decoded-Content-Length", fmt.Sprint(len(data)))
	sign(t, req, "STREAMING-UNSIGNED-PAYLOAD-TRAILER")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("put: %s", resp.Status)
	}
	if r := do(t, "GET", u, nil, nil); !bytes.Equal(r.body, data) {
		t.Fatalf("get: %d bytes, want %d", len(r.body), len(data))
	}
}

// signedChunkedPut uploads data as STREAMING-AWS4-HMAC-SHA256-PAYLOAD, its
// seed and chunk signatures made by the AWS SDK for Go's signers; tamper,
// if set, changes the body after it is signed.
func signedChunkedPut(t *testing.T, s *s3server.Server, u string, data []byte, tamper func([]byte)) response {
	t.Helper()
	const sha = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"
	placeholder := awsChunkedSigned(data, 8192, true, nil)
	req, _ := http.NewRequestWithContext(t.Context(), "PUT", u, nil)
	req.ContentLength = int64(len(placeholder))
	req.Header.Set("Content-Encoding", "aws-chunked")
	req.Header.Set("X-Amz-Decoded-Content-Length", fmt.Sprint(len(data)))
	now := time.Now()
	creds := aws.Credentials{AccessKeyID: s.AccessKey(), SecretAccessKey: s.SecretKey()}
	req.Header.Set("X-Amz-Content-Sha256", sha)
	if err := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true }).SignHTTP(t.Context(), creds, req, sha, "s3", "us-east-1", now); err != nil {
		t.Fatal(err)
	}
	_, seedHex, _ := strings.Cut(req.Header.Get("Authorization"), "Signature=")
	seed, err := hex.DecodeString(seedHex)
	if err != nil {
		t.Fatal(err)
	}
	chain := v4.NewStreamSigner(creds, "s3", "us-east-1", seed)
	body := awsChunkedSigned(data, 8192, true, func(p []byte) string {
		sig, err := chain.GetSignature(t.Context(), nil, p, now)
		if err != nil {
			t.Fatal(err)
		}
		return hex.EncodeToString(sig)
	})
	if tamper != nil {
		tamper(body)
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{resp.StatusCode, resp.Header, b}
}

// Chunk signatures are checked as the body arrives: an upload whose every
// chunk is signed by the SDK's signer is stored; one whose data changed
// after signing is refused, and nothing of it is stored.
func TestSignedChunksAreChecked(t *testing.T) {
	backends(t, func(t *testing.T, s *s3server.Server) {
		data := payload(50_000, 11)
		u := s.Endpoint() + "/" + bucket + "/signed-chunks"
		want(t, "signed chunks", signedChunkedPut(t, s, u, data, nil), 200)
		if r := do(t, "GET", u, nil, nil); !bytes.Equal(r.body, data) {
			t.Fatalf("get: %d bytes, want %d", len(r.body), len(data))
		}
		bad := s.Endpoint() + "/" + bucket + "/forged-chunks"
		r := signedChunkedPut(t, s, bad, data, func(b []byte) { b[len(b)/2] ^= 1 })
		if r.status == 200 || !strings.Contains(string(r.body), "signature") {
			t.Fatalf("a forged chunk: status %d, body %s; want it refused", r.status, r.body)
		}
		want(t, "get forged", do(t, "GET", bad, nil, nil), 404)
	})
}
