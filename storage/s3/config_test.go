package s3_test

import (
	"bytes"
	"context"
	"encoding/pem"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"

	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

const systemCAs = "/etc/ssl/certs/ca-certificates.crt"

// isolateAWS points the SDK's config loader at empty files in a temp
// directory and clears the AWS variables of the machine running the test.
func isolateAWS(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, k := range []string{"AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION",
		"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_CA_BUNDLE", "AWS_ROLE_ARN",
		"AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI"} {
		t.Setenv(k, "")
	}
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	return dir
}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// smokeTest creates the bucket and round-trips one object.
func smokeTest(ctx context.Context, s *s3.Store) error {
	if err := s.CreateBucket(ctx); err != nil {
		return err
	}
	if _, err := s.Put(ctx, "k", strings.NewReader("hello"), 5, storage.PutOptions{}); err != nil {
		return err
	}
	_, err := s.Get(ctx, "k", storage.GetOptions{}, io.Discard)
	return err
}

func TestCABundle(t *testing.T) {
	plain := fakeS3(t)
	tlsSrv := startTLSServer(t, plain.Config.Handler)
	tests := []struct {
		name     string
		https    bool
		ca       string // "system", "missing", "server", "junk" or ""
		envCA    string // AWS_CA_BUNDLE, same names
		chain    bool   // credentials from the environment, not static
		region   string
		insecure bool
		wantNew  string // substring of New's error; "" = New succeeds
		wantFail bool   // the smoke test fails
	}{
		{name: "http, system bundle, static", ca: "system", region: "us-east-1"},
		{name: "http, system bundle in both, chain", ca: "system", envCA: "system", chain: true},
		{name: "http, missing bundle in both, chain", ca: "missing", envCA: "missing", chain: true},
		{name: "http, missing bundle, static, region from SDK", ca: "missing", envCA: "missing"},
		{name: "https, missing bundle", https: true, ca: "missing", wantNew: "CA bundle"},
		{name: "https, bundle without PEM", https: true, ca: "junk", wantNew: "no PEM certificates"},
		{name: "https, server's cert as bundle", https: true, ca: "server", chain: true},
		{name: "https, system bundle does not know the server", https: true, ca: "system", wantFail: true},
		{name: "https, no bundle", https: true, wantFail: true},
		{name: "https, missing bundle, insecure", https: true, ca: "missing", insecure: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := isolateAWS(t)
			files := map[string]string{
				"":        "",
				"system":  systemCAs,
				"missing": filepath.Join(dir, "no-such-bundle.pem"),
				"junk":    writeFile(t, filepath.Join(dir, "junk.pem"), "not a certificate\n"),
				"server": writeFile(t, filepath.Join(dir, "server.pem"), string(pem.EncodeToMemory(
					&pem.Block{Type: "CERTIFICATE", Bytes: tlsSrv.Certificate().Raw}))),
			}
			t.Setenv("AWS_CA_BUNDLE", files[tt.envCA])
			c := s3.Config{Endpoint: plain.URL, Bucket: testBucket, PathStyle: true, Region: tt.region,
				CABundle: files[tt.ca], Insecure: tt.insecure, AccessKey: testAccessKey, SecretKey: testSecretKey}
			if tt.https {
				c.Endpoint = tlsSrv.URL
			}
			if tt.chain {
				c.AccessKey, c.SecretKey = "", ""
				t.Setenv("AWS_ACCESS_KEY_ID", testAccessKey)
				t.Setenv("AWS_SECRET_ACCESS_KEY", testSecretKey)
			}
			s, err := s3.New(context.Background(), c)
			if tt.wantNew != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantNew) || !strings.Contains(err.Error(), files[tt.ca]) {
					t.Fatalf("New err = %v, want one naming %q and the file", err, tt.wantNew)
				}
				return
			}
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			defer func() { _ = s.Close() }()
			if err := smokeTest(context.Background(), s); (err != nil) != tt.wantFail {
				t.Fatalf("smoke test err = %v, want failure %v", err, tt.wantFail)
			}
		})
	}
}

func TestRegionAndProfile(t *testing.T) {
	srv := fakeS3(t)
	tests := []struct {
		name       string
		env        map[string]string
		config     string // shared config file
		creds      string // shared credentials file
		c          s3.Config
		wantRegion string
		wantErr    string
	}{
		{name: "static, nothing configured", c: s3.Config{AccessKey: "a", SecretKey: "b"}, wantRegion: "us-east-1"},
		{name: "AWS_REGION", env: map[string]string{"AWS_REGION": "eu-north-1"}, c: s3.Config{AccessKey: "a", SecretKey: "b"}, wantRegion: "eu-north-1"},
		{name: "AWS_DEFAULT_REGION", env: map[string]string{"AWS_DEFAULT_REGION": "ap-south-1"}, c: s3.Config{AccessKey: "a", SecretKey: "b"}, wantRegion: "ap-south-1"},
		{name: "profile region and credentials",
			config: "[profile bench]\nregion = eu-central-1\n", creds: "[bench]\naws_access_key_id = a\naws_secret_access_key = b\n",
			c: s3.Config{Profile: "bench"}, wantRegion: "eu-central-1"},
		{name: "AWS_PROFILE", env: map[string]string{"AWS_PROFILE": "bench"},
			config: "[profile bench]\nregion = sa-east-1\n", creds: "[bench]\naws_access_key_id = a\naws_secret_access_key = b\n",
			wantRegion: "sa-east-1"},
		{name: "explicit region wins", config: "[profile bench]\nregion = eu-central-1\n",
			creds: "[bench]\naws_access_key_id = a\naws_secret_access_key = b\n",
			c:     s3.Config{Profile: "bench", Region: "us-west-2"}, wantRegion: "us-west-2"},
		{name: "unknown profile", c: s3.Config{Profile: "nope"}, wantErr: "nope"},
		{name: "no credentials anywhere", wantErr: "no usable credentials"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := isolateAWS(t)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			writeFile(t, filepath.Join(dir, "config"), tt.config)
			writeFile(t, filepath.Join(dir, "credentials"), tt.creds)
			c := tt.c
			c.Endpoint, c.Bucket, c.PathStyle = srv.URL, testBucket, true
			s, err := s3.New(context.Background(), c)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("New err = %v, want it to mention %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			defer func() { _ = s.Close() }()
			if s.Region() != tt.wantRegion {
				t.Errorf("Region = %q, want %q", s.Region(), tt.wantRegion)
			}
			if err := smokeTest(context.Background(), s); err != nil {
				t.Errorf("smoke test: %v", err)
			}
		})
	}
}

func TestAddressing(t *testing.T) {
	tests := []struct {
		endpoint, region, bucket string
		pathStyle                bool
		wantURL                  string
	}{
		{"", "eu-west-1", "bench", false, "https://bench.s3.eu-west-1.amazonaws.com/a%20b"},
		{"", "cn-north-1", "bench", false, "https://bench.s3.cn-north-1.amazonaws.com.cn/a%20b"},
		{"", "eu-west-1", "bench", true, "https://s3.eu-west-1.amazonaws.com/bench/a%20b"},
		{"", "eu-west-1", "my.bucket", false, "https://s3.eu-west-1.amazonaws.com/my.bucket/a%20b"},
		{"http://minio.example:80", "us-east-1", "my.bucket", false, "http://my.bucket.minio.example/a%20b"},
		{"https://minio.example:443/", "us-east-1", "bench", true, "https://minio.example/bench/a%20b"},
		{"http://127.0.0.1:9000", "us-east-1", "bench", false, "http://127.0.0.1:9000/bench/a%20b"},
		{"http://localhost:9000", "us-east-1", "bench", false, "http://localhost:9000/bench/a%20b"},
		{"http://[::1]:9000", "us-east-1", "bench", false, "http://[::1]:9000/bench/a%20b"},
	}
	for _, tt := range tests {
		t.Run(tt.wantURL, func(t *testing.T) {
			s := newStore(t, tt.endpoint, func(c *s3.Config) {
				c.Region, c.Bucket, c.PathStyle = tt.region, tt.bucket, tt.pathStyle
			})
			// A canceled context: the error names the URL, nothing is sent.
			_, err := s.Get(canceledCtx(t), "a b", storage.GetOptions{}, io.Discard)
			if err == nil || !strings.Contains(err.Error(), `"`+tt.wantURL+`"`) {
				t.Fatalf("err = %v, want URL %s", err, tt.wantURL)
			}
		})
	}
}

func TestVirtualHostRoundTrip(t *testing.T) {
	srv := fakeS3(t, gofakes3.WithHostBucket(true))
	s := newStore(t, "http://s3.objbench.test:"+srv.URL[strings.LastIndexByte(srv.URL, ':')+1:],
		func(c *s3.Config) { c.PathStyle = false })
	s3.RedirectDials(s, srv.Listener.Addr().String())
	ctx := context.Background()
	if err := smokeTest(ctx, s); err != nil {
		t.Fatal(err)
	}
	var keys []string
	err := s.List(ctx, "", func(o storage.ObjectInfo) error { keys = append(keys, o.Key); return nil })
	if err != nil || len(keys) != 1 || keys[0] != "k" {
		t.Fatalf("List = %q, %v", keys, err)
	}
	var buf bytes.Buffer
	if _, err := s.Get(ctx, "k", storage.GetOptions{}, &buf); err != nil || buf.String() != "hello" {
		t.Fatalf("Get = %q, %v", buf.String(), err)
	}
}

func TestNewRejects(t *testing.T) {
	tests := []struct {
		name string
		c    s3.Config
		want string
	}{
		{"no bucket", s3.Config{Endpoint: "http://h"}, "bucket"},
		{"bucket with slash", s3.Config{Endpoint: "http://h", Bucket: "a/b"}, "bucket"},
		{"user info", s3.Config{Endpoint: "http://user:pass@h", Bucket: "b"}, "user info"},
		{"ftp", s3.Config{Endpoint: "ftp://h", Bucket: "b"}, "scheme"},
		{"no host", s3.Config{Endpoint: "http://", Bucket: "b"}, "no host"},
		{"path", s3.Config{Endpoint: "http://h/base", Bucket: "b"}, "no path"},
		{"negative page size", s3.Config{Endpoint: "http://h", Bucket: "b", ListPageSize: -1}, "ListPageSize"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.c.AccessKey, tt.c.SecretKey, tt.c.Region = "a", "b", "us-east-1"
			_, err := s3.New(context.Background(), tt.c)
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "pass") {
				t.Fatalf("New err = %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}

func TestHTTP1OnlyEvenWhenServerOffersHTTP2(t *testing.T) {
	protos := make(chan string, 1)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case protos <- r.Proto:
		default:
		}
	}))
	srv.EnableHTTP2 = true
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	s := newStore(t, srv.URL, func(c *s3.Config) { c.Insecure = true })
	if _, err := s.Get(context.Background(), "k", storage.GetOptions{}, io.Discard); err != nil {
		t.Fatal(err)
	}
	if got := <-protos; got != "HTTP/1.1" {
		t.Errorf("request protocol = %s, want HTTP/1.1", got)
	}
}
