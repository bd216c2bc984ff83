package s3_test

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/storage/s3"
)

// featureTarget is a server the feature tests (versions, copies,
// checksums, conditions, encryption, tags) run against.
type featureTarget struct {
	name string
	cfg  s3.Config // without a bucket: each test names its own
}

// featureTargets are a real MinIO and the embedded server, which
// implement the same S3 features.
func featureTargets(t *testing.T) []featureTarget {
	t.Helper()
	m := testenv.StartMinIO(t)
	emb := startEmbedded(t)
	return []featureTarget{
		{"minio", s3.Config{Endpoint: m.Endpoint, AccessKey: m.AccessKey, SecretKey: m.SecretKey}},
		{"embedded", s3.Config{Endpoint: emb.Endpoint(), AccessKey: emb.AccessKey(), SecretKey: emb.SecretKey()}},
	}
}

// lackingServer is a store that truly lacks the S3 features above: it
// keeps plain PUTs and serves plain GETs and HEADs, answers every request
// with a sub-resource or a feature header 501 NotImplemented (as S3
// answers what it does not implement), and echoes no checksum. The client
// must say "not implemented by this target" for each feature it is asked
// for here.
func lackingServer(t *testing.T) string {
	t.Helper()
	var mu sync.Mutex
	objects := map[string][]byte{}
	srv := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		plain := r.URL.RawQuery == "" || r.URL.RawQuery == "x-id=PutObject" || r.URL.RawQuery == "x-id=GetObject"
		for k := range r.Header {
			if strings.HasPrefix(k, "X-Amz-Server-Side") || strings.HasPrefix(k, "X-Amz-Copy-Source") ||
				k == "X-Amz-Tagging" || k == "X-Amz-Storage-Class" || k == "X-Amz-Metadata-Directive" {
				plain = false
			}
		}
		if !plain || (r.Method != http.MethodPut && r.Method != http.MethodGet && r.Method != http.MethodHead) {
			w.WriteHeader(http.StatusNotImplemented)
			_, _ = io.WriteString(w, "<Error><Code>NotImplemented</Code><Message>not here</Message></Error>")
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if r.Method == http.MethodPut {
			data, _ := io.ReadAll(r.Body)
			if r.Header.Get("X-Amz-Decoded-Content-Length") != "" {
				data = unchunk(data)
			}
			objects[r.URL.Path] = data
			sum := md5.Sum(data)
			w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:])+`"`)
			return
		}
		data, ok := objects[r.URL.Path]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, "<Error><Code>NoSuchKey</Code><Message>no</Message></Error>")
			return
		}
		sum := md5.Sum(data)
		w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:])+`"`)
		_, _ = w.Write(data)
	}))
	return srv.URL
}

// unchunk decodes an aws-chunked body, trailers dropped.
func unchunk(b []byte) []byte {
	var out []byte
	for {
		line, rest, ok := bytes.Cut(b, []byte("\r\n"))
		size, _, _ := bytes.Cut(line, []byte(";"))
		n, err := strconv.ParseInt(string(size), 16, 64)
		if !ok || err != nil || n == 0 || int64(len(rest)) < n {
			return out
		}
		out = append(out, rest[:n]...)
		b = bytes.TrimPrefix(rest[n:], []byte("\r\n"))
	}
}
