package s3server_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/objbench/objbench/s3server"
)

func startTLS(t *testing.T, dir string) *s3server.Server {
	t.Helper()
	srv, err := s3server.Start(context.Background(), s3server.Config{TLS: true, CertDir: dir, NoAuth: true, Buckets: []string{"tls"}})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// clientTrusting is an https client whose only root is the PEM file ca.
func clientTrusting(t *testing.T, ca string) *http.Client {
	t.Helper()
	pem, err := os.ReadFile(ca)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		t.Fatal("no certificate in the CA file")
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
}

// With TLS the server answers https at every loopback name its
// certificate has, for clients that trust its CA file, and is refused by
// clients that do not.
func TestServesTLS(t *testing.T) {
	dir := t.TempDir()
	srv := startTLS(t, dir)
	defer srv.Close(context.Background())
	if !strings.HasPrefix(srv.Endpoint(), "https://127.0.0.1:") || srv.CAFile() != filepath.Join(dir, "ca.pem") {
		t.Fatalf("endpoint %s, CA file %s", srv.Endpoint(), srv.CAFile())
	}
	c := clientTrusting(t, srv.CAFile())
	port := srv.Endpoint()[strings.LastIndexByte(srv.Endpoint(), ':'):]
	for _, host := range []string{"127.0.0.1", "localhost", "[::1]"} {
		u := "https://" + host + port + "/tls/k"
		req, _ := http.NewRequest("PUT", u, strings.NewReader("hello"))
		resp, err := c.Do(req)
		if strings.Contains(host, "::1") && err != nil && strings.Contains(err.Error(), "connect") {
			continue // no IPv6 loopback here; the certificate is checked for it in package selfsigned
		}
		if err != nil {
			t.Fatalf("PUT %s: %v", u, err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.TLS == nil || resp.ProtoMajor != 1 {
			t.Errorf("PUT %s: %s over %s", u, resp.Status, resp.Proto)
		}
	}
	_, err := http.Get(srv.Endpoint() + "/tls/k")
	var unknown x509.UnknownAuthorityError
	if !errors.As(err, &unknown) {
		t.Errorf("a client that does not trust the CA got %v, want an unknown authority error", err)
	}
}

// A certificate directory is served again by the next server (clients
// keep trusting it); one holding only some of the files is refused; none
// at all is a temporary one, removed on Close.
func TestCertDir(t *testing.T) {
	dir := t.TempDir()
	srv := startTLS(t, dir)
	first, _ := os.ReadFile(srv.CAFile())
	srv.Close(context.Background())
	srv = startTLS(t, dir)
	again, _ := os.ReadFile(srv.CAFile())
	resp, err := clientTrusting(t, filepath.Join(dir, "ca.pem")).Get(srv.Endpoint() + "/tls/")
	if err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	srv.Close(context.Background())
	if len(first) == 0 || !bytes.Equal(first, again) || err != nil {
		t.Errorf("restart on the same directory: same CA %v, request %v", bytes.Equal(first, again), err)
	}

	if err := os.Remove(filepath.Join(dir, "key.pem")); err != nil {
		t.Fatal(err)
	}
	_, err = s3server.Start(context.Background(), s3server.Config{TLS: true, CertDir: dir, NoAuth: true})
	if err == nil || !strings.Contains(err.Error(), "key.pem") {
		t.Errorf("a directory without key.pem: %v, want an error naming it", err)
	}

	srv = startTLS(t, "")
	ca := srv.CAFile()
	if _, err := os.Stat(ca); err != nil {
		t.Fatal(err)
	}
	srv.Close(context.Background())
	if _, err := os.Stat(filepath.Dir(ca)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the temporary certificate directory is left after Close: %v", err)
	}
}
