package selfsigned

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// LoopbackHosts are the names a loopback server is reached by.
func LoopbackHosts() []string { return []string{"127.0.0.1", "::1", "localhost"} }

// Cert is a CA and a server certificate signed by it, PEM-encoded.
type Cert struct {
	CAPEM   []byte // the CA's certificate: what clients trust
	CertPEM []byte // the server's certificate, signed by the CA
	KeyPEM  []byte // the server's private key (PKCS #8)
}

// Generate makes a CA and a server certificate for hosts (IP addresses
// and DNS names), valid from a minute ago for validFor.
func Generate(hosts []string, validFor time.Duration) (*Cert, error) {
	if len(hosts) == 0 {
		return nil, errors.New("selfsigned: no host names")
	}
	now := time.Now().Add(-time.Minute)
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	ca := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "objbench local CA " + now.UTC().Format(time.RFC3339)},
		NotBefore:             now,
		NotAfter:              now.Add(validFor),
		IsCA:                  true,
		BasicConstraintsValid: true,
		MaxPathLenZero:        true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("selfsigned: CA: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	leaf := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: hosts[0]},
		NotBefore:    now,
		NotAfter:     now.Add(validFor),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			leaf.IPAddresses = append(leaf.IPAddresses, ip)
		} else {
			leaf.DNSNames = append(leaf.DNSNames, h)
		}
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	der, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &key.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("selfsigned: server certificate: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	return &Cert{
		CAPEM:   pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
	}, nil
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 126))
	if err != nil { // crypto/rand does not fail on Linux
		panic(err)
	}
	return n
}

// TLSCertificate is the server certificate and key for a tls.Config.
func (c *Cert) TLSCertificate() (tls.Certificate, error) {
	return tls.X509KeyPair(c.CertPEM, c.KeyPEM)
}

// ServerConfig is a TLS server configuration serving c.
func (c *Cert) ServerConfig() (*tls.Config, error) {
	kp, err := c.TLSCertificate()
	if err != nil {
		return nil, err
	}
	return &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{kp}}, nil
}

// Files are where WriteFiles put a Cert.
type Files struct {
	CA   string // the CA certificate, for clients (AWS_CA_BUNDLE, --ca-bundle)
	Cert string // the server certificate
	Key  string // the server's private key (mode 0600)
}

// WriteFiles writes ca.pem, cert.pem and key.pem into dir (created if
// missing).
func (c *Cert) WriteFiles(dir string) (Files, error) {
	f := Files{CA: filepath.Join(dir, "ca.pem"), Cert: filepath.Join(dir, "cert.pem"), Key: filepath.Join(dir, "key.pem")}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Files{}, fmt.Errorf("selfsigned: %w", err)
	}
	for _, w := range []struct {
		path string
		data []byte
		mode os.FileMode
	}{{f.CA, c.CAPEM, 0o644}, {f.Cert, c.CertPEM, 0o644}, {f.Key, c.KeyPEM, 0o600}} {
		if err := os.WriteFile(w.path, w.data, w.mode); err != nil {
			return Files{}, fmt.Errorf("selfsigned: %w", err)
		}
	}
	return f, nil
}
