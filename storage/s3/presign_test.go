package s3_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
	"github.com/objbench/objbench/storage/storagetest"
)

// A presigned URL reads the object without credentials, by the store
// (unsigned) and by a plain HTTP client, on MinIO and the embedded server
// (both check the signature): an expired or altered one is refused, one
// for another endpoint is not sent.
func TestPresign(t *testing.T) {
	for name, base := range conditionTargets(t, "presign") {
		for _, client := range clients {
			t.Run(name+"/"+client, func(t *testing.T) {
				ctx := context.Background()
				c := base
				c.HTTPClient = client
				s := connect(t, c)
				if err := s.CreateBucket(ctx); err != nil {
					t.Fatal(err)
				}
				checkPresign(t, s, "dir/a key+1", "")
			})
		}
	}
}

// checkPresign reads key by presigned URLs; dial, if set, is where a plain
// client connects whatever the URL's host (names of the test's own,
// which must never reach a real DNS server).
func checkPresign(t *testing.T, s *s3.Store, key, dial string) {
	ctx := context.Background()
	data := payload(3000)
	putData(t, s, key, data)
	u, err := s.Presign(ctx, key, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	var tr storage.Trace
	if n, err := s.GetPresigned(ctx, u, storage.GetOptions{Trace: &tr}, &b); err != nil || n != 3000 || !bytes.Equal(b.Bytes(), data) {
		t.Fatalf("GET by presigned URL: %d bytes, %v", n, err)
	}
	if tr.FirstByte.IsZero() || tr.Phases.Wait <= 0 {
		t.Errorf("no phases for a presigned GET: %+v", tr)
	}
	b.Reset()
	if n, err := s.GetPresigned(ctx, u, storage.GetOptions{Range: &storage.Range{Offset: 10, Length: 5}}, &b); err != nil || n != 5 || !bytes.Equal(b.Bytes(), data[10:15]) {
		t.Fatalf("ranged GET by presigned URL: %d bytes, %v", n, err)
	}
	resp, err := (&http.Client{Transport: plainTransport(dial)}).Get(u)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Equal(got, data) {
		t.Fatalf("a plain HTTP client: %s, %d bytes", resp.Status, len(got))
	}
	expired, err := s3.PresignAt(s, key, time.Hour, time.Now().Add(-2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetPresigned(ctx, expired, storage.GetOptions{}, io.Discard); !errors.Is(err, storage.ErrAccessDenied) {
		t.Errorf("an expired URL: %v, want access denied", err)
	}
	altered := strings.Replace(u, "X-Amz-Expires=60", "X-Amz-Expires=600", 1)
	if _, err := s.GetPresigned(ctx, altered, storage.GetOptions{}, io.Discard); !errors.Is(err, storage.ErrAccessDenied) {
		t.Errorf("an altered URL: %v, want access denied", err)
	}
	if _, err := s.GetPresigned(ctx, "http://example.com/presign/x", storage.GetOptions{}, io.Discard); err == nil {
		t.Error("a URL of another endpoint was sent")
	}
	if _, err := s.Presign(ctx, key, 8*24*time.Hour); err == nil {
		t.Error("a URL living 8 days was signed (SigV4 allows 7)")
	}
}

// plainTransport is a plain client's transport, connecting to dial if set.
func plainTransport(dial string) http.RoundTripper {
	tr := &http.Transport{}
	if dial != "" {
		tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, dial)
		}
	}
	return tr
}

// Virtual-host addressing against MinIO serving bucket.DOMAIN: the
// conformance suite and presigned URLs pass with the bucket in the host
// name, and the store says it addresses so.
func TestVirtualHostMinIO(t *testing.T) {
	const domain = "s3.objbench.test"
	m := testenv.StartMinIOWith(t, testenv.MinIOOptions{Domain: domain})
	port := m.Endpoint[strings.LastIndexByte(m.Endpoint, ':'):]
	for _, client := range clients {
		t.Run(client, func(t *testing.T) {
			s, err := s3.New(context.Background(), s3.Config{Endpoint: "http://" + domain + port, Bucket: "vhost-" + client,
				Region: "us-east-1", AccessKey: m.AccessKey, SecretKey: m.SecretKey, VirtualHost: true, HTTPClient: client})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			s3.RedirectDials(s, "127.0.0.1"+port)
			if o := s.Options(); o.Addressing != "virtual" || o.HTTPClient != client || o.Endpoint != "http://"+domain+port {
				t.Errorf("Options() = %+v", o)
			}
			if err := s.CreateBucket(context.Background()); err != nil {
				t.Fatal(err)
			}
			storagetest.Run(t, func(*testing.T) storage.Store { return s })
			checkPresign(t, s, "v/k", "127.0.0.1"+port)
		})
	}
	for _, c := range []s3.Config{
		{Endpoint: m.Endpoint, Bucket: "vhost"},                  // an IP address
		{Endpoint: "https://" + domain, Bucket: "dotted.bucket"}, // a dotted bucket over https
		{Endpoint: "http://" + domain, Bucket: "vhost", PathStyle: true},
	} {
		c.VirtualHost, c.Region, c.AccessKey, c.SecretKey = true, "us-east-1", "a", "b"
		if _, err := s3.New(context.Background(), c); err == nil {
			t.Errorf("virtual-host addressing of %s on %s was accepted", c.Bucket, c.Endpoint)
		}
	}
}

// The embedded server serves path-style requests only: a virtual-host
// request fails (the key is taken for a bucket that does not exist).
func TestVirtualHostEmbedded(t *testing.T) {
	emb := startEmbedded(t, "vhost")
	port := emb.Endpoint()[strings.LastIndexByte(emb.Endpoint(), ':'):]
	s, err := s3.New(context.Background(), s3.Config{Endpoint: "http://s3.objbench.test" + port, Bucket: "vhost",
		Region: "us-east-1", AccessKey: emb.AccessKey(), SecretKey: emb.SecretKey(), VirtualHost: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s3.RedirectDials(s, "127.0.0.1"+port)
	if _, err := s.Put(context.Background(), "k", strings.NewReader("x"), 1, storage.PutOptions{}); err == nil {
		t.Fatal("a virtual-host PUT to the embedded server succeeded")
	}
}
