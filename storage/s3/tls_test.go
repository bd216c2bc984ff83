package s3_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/selfsigned"
	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/s3server"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
	"github.com/objbench/objbench/storage/storagetest"
)

// tlsTargets are https servers: the embedded one and MinIO, each with the
// CA file that signed its certificate.
func tlsTargets(t *testing.T) map[string]s3.Config {
	t.Helper()
	emb, err := s3server.Start(context.Background(), s3server.Config{TLS: true, Buckets: []string{"tls"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = emb.Close(context.Background()) })
	m := testenv.StartMinIOWith(t, testenv.MinIOOptions{TLS: true})
	return map[string]s3.Config{
		"embedded": {Endpoint: emb.Endpoint(), Bucket: "tls", AccessKey: emb.AccessKey(), SecretKey: emb.SecretKey(), CABundle: emb.CAFile()},
		"minio":    {Endpoint: m.Endpoint, Bucket: "tls", AccessKey: m.AccessKey, SecretKey: m.SecretKey, CABundle: m.CAFile},
	}
}

// Over TLS, against the embedded server and MinIO, with both clients: the
// conformance suite passes; the first request pays a handshake, the next
// ones none; after the pool is emptied the next connection resumes the
// session, unless resumption is off.
func TestTLSTargets(t *testing.T) {
	for name, base := range tlsTargets(t) {
		for _, client := range clients {
			t.Run(name+"/"+client, func(t *testing.T) {
				c := base
				c.HTTPClient = client
				s := connect(t, c)
				if err := s.CreateBucket(context.Background()); err != nil {
					t.Fatal(err)
				}
				checkHandshakes(t, connect(t, c), true) // stores that have not connected yet
				c.NoTLSResumption = true
				checkHandshakes(t, connect(t, c), false)
				storagetest.Run(t, func(*testing.T) storage.Store { return s })
			})
		}
	}
}

func checkHandshakes(t *testing.T, s *s3.Store, resume bool) {
	t.Helper()
	ctx := context.Background()
	var tr storage.Trace
	put := func() storage.Phases {
		data := payload(10_000)
		if _, err := s.Put(ctx, "hs", strings.NewReader(string(data)), int64(len(data)), storage.PutOptions{Trace: &tr}); err != nil {
			t.Fatal(err)
		}
		return tr.Phases
	}
	ph := put()
	if !ph.NewConn || ph.TLS <= 0 || ph.TLSResumed {
		t.Errorf("first PUT: %+v, want a new connection with a full handshake", ph)
	}
	if ph = put(); ph.NewConn || ph.TLS != 0 {
		t.Errorf("second PUT: %+v, want a reused connection", ph)
	}
	s.Close()
	if ph = put(); !ph.NewConn || ph.TLS <= 0 || ph.TLSResumed != resume {
		t.Errorf("PUT after closing the pool: %+v, want a new connection, resumed %v", ph, resume)
	}
	got := s.Connections()
	if got.TLSHandshakes != 2 || (got.TLSResumed == 1) != resume || got.Opened != 2 {
		t.Errorf("Connections() = %+v, want 2 handshakes, resumed %v", got, resume)
	}
}

// A server whose certificate the client does not trust is refused with
// an error saying so (storage.ErrCertificate, class tls_certificate) and
// naming the certificate problem and the way out; Insecure skips the check.
func TestUntrustedCertificate(t *testing.T) {
	emb, err := s3server.Start(context.Background(), s3server.Config{TLS: true, Buckets: []string{"tls"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = emb.Close(context.Background()) })
	other, err := selfsigned.Generate(selfsigned.LoopbackHosts(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	otherCA := filepath.Join(t.TempDir(), "other.pem")
	if err := os.WriteFile(otherCA, other.CAPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, client := range clients {
		for _, tt := range []struct {
			name, ca, endpoint string
			insecure           bool
			want               string // in the error; "" = works
		}{
			{"another CA", otherCA, emb.Endpoint(), false, "certificate signed by unknown authority"},
			{"wrong host", emb.CAFile(), strings.Replace(emb.Endpoint(), "127.0.0.1", "s3.wrong.test", 1), false, "s3.wrong.test"},
			{"another CA, insecure", otherCA, emb.Endpoint(), true, ""},
			{"its CA", emb.CAFile(), emb.Endpoint(), false, ""},
		} {
			t.Run(client+"/"+tt.name, func(t *testing.T) {
				s := connect(t, s3.Config{Endpoint: tt.endpoint, Bucket: "tls", AccessKey: emb.AccessKey(), SecretKey: emb.SecretKey(),
					CABundle: tt.ca, Insecure: tt.insecure, HTTPClient: client})
				s3.RedirectDials(s, strings.TrimPrefix(emb.Endpoint(), "https://"))
				_, err := s.Get(context.Background(), "none", storage.GetOptions{}, io.Discard)
				if tt.want == "" {
					if !errors.Is(err, storage.ErrNotFound) {
						t.Fatalf("GET of a missing key: %v, want not found", err)
					}
					return
				}
				if !errors.Is(err, storage.ErrCertificate) || storage.ErrorClass(err) != storage.ClassTLS ||
					!strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "CABundle") {
					t.Fatalf("GET: %v (class %s), want a certificate error naming %q and CABundle", err, storage.ErrorClass(err), tt.want)
				}
			})
		}
	}
}
