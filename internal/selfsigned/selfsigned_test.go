package selfsigned

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"testing"
	"time"
)

// The server certificate verifies against the CA for every loopback name
// and for no other, and the key file is private.
func TestCertVerifiesForItsHostsOnly(t *testing.T) {
	c, err := Generate(LoopbackHosts(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(c.CAPEM) {
		t.Fatal("CA PEM does not parse")
	}
	blk, _ := pem.Decode(c.CertPEM)
	leaf, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if leaf.IsCA {
		t.Error("the server certificate is a CA (strict clients refuse a CA as end entity)")
	}
	for _, h := range LoopbackHosts() {
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: h}); err != nil {
			t.Errorf("verify for %s: %v", h, err)
		}
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: "example.com"}); err == nil {
		t.Error("verifies for example.com")
	}
	if _, err := c.ServerConfig(); err != nil {
		t.Fatal(err)
	}
	f, err := c.WriteFiles(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(f.Key)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("key file: %v, mode %v", err, st.Mode())
	}
}
