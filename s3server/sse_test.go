package s3server_test

import (
	"bytes"
	"crypto/md5"
	"encoding/base64"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/s3server"
)

func ssecHeaders(key []byte, prefix string) map[string]string {
	sum := md5.Sum(key)
	return map[string]string{
		prefix + "server-side-encryption-customer-algorithm": "AES256",
		prefix + "server-side-encryption-customer-key":       base64.StdEncoding.EncodeToString(key),
		prefix + "server-side-encryption-customer-key-md5":   base64.StdEncoding.EncodeToString(sum[:]),
	}
}

// SSE-S3 and SSE-KMS are accepted and echoed; an SSE-C object reads (GET,
// HEAD, a copy, a part) only with its key: none is 400, another 403; a key
// whose MD5 is not the one sent is 400 and nothing is stored. The key
// never reaches the log.
func TestServerSideEncryption(t *testing.T) {
	var logged testenv.Buffer // the server logs a request after answering it
	s := start(t, s3server.Config{Buckets: []string{bucket}, Log: slog.New(slog.NewTextHandler(&logged, nil))})
	base := s.Endpoint() + "/" + bucket
	r := do(t, "PUT", base+"/s3", []byte("x"), map[string]string{"x-amz-server-side-encryption": "AES256"})
	if r.header.Get("X-Amz-Server-Side-Encryption") != "AES256" {
		t.Errorf("SSE-S3 PUT: %v", r.header)
	}
	if r := do(t, "HEAD", base+"/s3", nil, nil); r.header.Get("X-Amz-Server-Side-Encryption") != "AES256" {
		t.Errorf("SSE-S3 HEAD: %v", r.header)
	}
	r = do(t, "PUT", base+"/kms", []byte("x"), map[string]string{"x-amz-server-side-encryption": "aws:kms",
		"x-amz-server-side-encryption-aws-kms-key-id": "my-key"})
	if r := do(t, "HEAD", base+"/kms", nil, nil); r.header.Get("X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id") != "my-key" {
		t.Errorf("SSE-KMS HEAD: %v", r.header)
	}

	key, other := bytes.Repeat([]byte{7}, 32), bytes.Repeat([]byte{8}, 32)
	data := payload(10_000, 61)
	u := base + "/ssec"
	bad := ssecHeaders(key, "x-amz-")
	bad["x-amz-server-side-encryption-customer-key-md5"] = base64.StdEncoding.EncodeToString(make([]byte, 16))
	want(t, "a key with the wrong MD5", do(t, "PUT", u, data, bad), 400)
	want(t, "nothing stored", do(t, "HEAD", u, nil, ssecHeaders(key, "x-amz-")), 404)
	short := ssecHeaders(key[:16], "x-amz-")
	want(t, "a 128-bit key", do(t, "PUT", u, data, short), 400)
	r = do(t, "PUT", u, data, ssecHeaders(key, "x-amz-"))
	want(t, "SSE-C PUT", r, 200)
	if r.header.Get("X-Amz-Server-Side-Encryption-Customer-Algorithm") != "AES256" {
		t.Errorf("SSE-C PUT: %v", r.header)
	}
	for _, m := range []string{"GET", "HEAD"} {
		want(t, m+" without the key", do(t, m, u, nil, nil), 400)
		want(t, m+" with another key", do(t, m, u, nil, ssecHeaders(other, "x-amz-")), 403)
		r := do(t, m, u, nil, ssecHeaders(key, "x-amz-"))
		want(t, m+" with the key", r, 200)
		if m == "GET" && !bytes.Equal(r.body, data) {
			t.Errorf("GET with the key: %d bytes", len(r.body))
		}
	}
	cp := map[string]string{"x-amz-copy-source": bucket + "/ssec"}
	want(t, "copy without the source's key", do(t, "PUT", base+"/copy", nil, cp), 400)
	for k, v := range ssecHeaders(key, "x-amz-copy-source-") {
		cp[k] = v
	}
	for k, v := range ssecHeaders(other, "x-amz-") {
		cp[k] = v
	}
	want(t, "copy with the source's key to another", do(t, "PUT", base+"/copy", nil, cp), 200)
	want(t, "the copy with its own key", do(t, "GET", base+"/copy", nil, ssecHeaders(other, "x-amz-")), 200)
	want(t, "the copy with the source's key", do(t, "GET", base+"/copy", nil, ssecHeaders(key, "x-amz-")), 403)

	mp := base + "/ssec-mp"
	r = do(t, "POST", mp+"?uploads", nil, ssecHeaders(key, "x-amz-"))
	var res struct{ UploadId string }
	decodeXML(t, r.body, &res)
	want(t, "part without the key", do(t, "PUT", fmt.Sprintf("%s?partNumber=1&uploadId=%s", mp, res.UploadId), data, nil), 400)
	etag := uploadPart(t, mp, res.UploadId, 1, data, ssecHeaders(key, "x-amz-"))
	want(t, "complete", completeUpload(t, mp, res.UploadId, []string{etag}), 200)
	want(t, "multipart object without the key", do(t, "GET", mp, nil, nil), 400)
	want(t, "multipart object with the key", do(t, "GET", mp, nil, ssecHeaders(key, "x-amz-")), 200)

	secret := base64.StdEncoding.EncodeToString(key)
	if strings.Contains(logged.String(), secret) || !strings.Contains(logged.String(), "ssec") {
		t.Errorf("the log (%d bytes) has the key, or no request", len(logged.String()))
	}
}
