package s3_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// Distinctive so a test can look for them in error strings.
const (
	testAccessKey = "AKIATESTKEYID0000042"
	testSecretKey = "tEsTsEcReT/kEy+0123456789abcdefghijklmn"
	testToken     = "tEsTsEsSiOnToKeN0123456789"
	testBucket    = "bench"
)

// startServer runs h on a loopback listener whose own logging is silenced.
func startServer(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// startTLSServer is startServer over https with httptest's own certificate.
func startTLSServer(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// fakeS3 is the in-process S3 server (gofakes3 over memory). It does not
// check signatures; see TestSignatureMatchesWire for that.
func fakeS3(t testing.TB, opts ...gofakes3.Option) *httptest.Server {
	t.Helper()
	opts = append(opts, gofakes3.WithLogger(gofakes3.DiscardLog()))
	return startServer(t, gofakes3.New(s3mem.New(), opts...).Server())
}

// newStore builds a Store with static credentials, path style, for endpoint.
func newStore(t testing.TB, endpoint string, mods ...func(*s3.Config)) *s3.Store {
	t.Helper()
	c := s3.Config{
		Endpoint:  endpoint,
		Bucket:    testBucket,
		Region:    "us-east-1",
		AccessKey: testAccessKey,
		SecretKey: testSecretKey,
		PathStyle: true,
	}
	for _, m := range mods {
		m(&c)
	}
	s, err := s3.New(context.Background(), c)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// bucketStore is a Store on a fresh fake server with its bucket created.
func bucketStore(t testing.TB, mods ...func(*s3.Config)) *s3.Store {
	t.Helper()
	s := newStore(t, fakeS3(t).URL, mods...)
	if err := s.CreateBucket(context.Background()); err != nil {
		t.Fatalf("CreateBucket: %v", err)
	}
	return s
}

// payload is n deterministic, position-dependent bytes.
func payload(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i>>8)
	}
	return b
}

func md5hex(b []byte) string {
	h := md5.Sum(b)
	return hex.EncodeToString(h[:])
}

func mustPut(t testing.TB, s *s3.Store, key string, data []byte) {
	t.Helper()
	if _, err := s.Put(context.Background(), key, bytes.NewReader(data), int64(len(data)), storage.PutOptions{}); err != nil {
		t.Fatalf("Put %q: %v", key, err)
	}
}
