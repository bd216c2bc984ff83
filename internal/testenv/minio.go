package testenv

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/selfsigned"
)

// MinIO is a running MinIO server owned by one test.
type MinIO struct {
	Endpoint  string // http://127.0.0.1:PORT, https:// with TLS
	AccessKey string
	SecretKey string
	// CAFile is the PEM file of the CA that signed MinIO's certificate
	// (with MinIOOptions.TLS).
	CAFile string
	// KMSKeyID names MinIO's built-in KMS key (with MinIOOptions.KMS).
	KMSKeyID string

	bin, addr, console, dir string
	args, env               []string // more server arguments and environment (MinIOOptions)
	proc                    *process // the running server; nil once killed
}

// MinIOOptions start MinIO with more than plain http.
type MinIOOptions struct {
	// TLS serves https with a certificate for 127.0.0.1 from a CA of the
	// test's own (MinIO's certs dir: public.crt, private.key).
	TLS bool
	// KMS gives MinIO a static KMS key (MINIO_KMS_SECRET_KEY), which
	// server-side encryption (SSE-S3, SSE-KMS) needs.
	KMS bool
	// Domain serves virtual-host requests (bucket.DOMAIN) besides path
	// ones (MINIO_DOMAIN); the test dials 127.0.0.1 for the name itself.
	Domain string
}

// MinIOBinary finds the server: $OBJBENCH_MINIO, then GOPATH/bin, then PATH.
func MinIOBinary() (string, error) {
	if p := os.Getenv("OBJBENCH_MINIO"); p != "" {
		return p, nil
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		p := filepath.Join(strings.TrimSpace(string(out)), "bin", "minio")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return exec.LookPath("minio")
}

// StartMinIO starts MinIO for tb, or skips the test when MinIO is not
// installed — unless OBJBENCH_REQUIRE_MINIO is set (the test script sets
// it), in which case a missing server fails the test.
func StartMinIO(tb testing.TB) *MinIO {
	tb.Helper()
	return StartMinIOWith(tb, MinIOOptions{})
}

// StartMinIOWith is StartMinIO with options.
func StartMinIOWith(tb testing.TB, o MinIOOptions) *MinIO {
	tb.Helper()
	bin, err := MinIOBinary()
	if err != nil {
		if os.Getenv("OBJBENCH_REQUIRE_MINIO") != "" {
			tb.Fatalf("MinIO is required but not installed: run scripts/install-minio.sh (%v)", err)
		}
		tb.Skip("MinIO not installed (scripts/install-minio.sh installs it); skipping the MinIO integration test")
	}
	m := &MinIO{AccessKey: "ak" + randHex(8), SecretKey: "sk" + randHex(16)}
	var args, env []string
	if o.TLS {
		dir := tb.TempDir()
		if err := writeMinIOCert(dir); err != nil {
			tb.Fatalf("MinIO certificate: %v", err)
		}
		args, m.CAFile = []string{"--certs-dir", dir}, filepath.Join(dir, "ca.pem")
	}
	if o.KMS {
		key := make([]byte, 32)
		_, _ = rand.Read(key)
		m.KMSKeyID = "objbench-test-key"
		env = append(env, "MINIO_KMS_SECRET_KEY="+m.KMSKeyID+":"+base64.StdEncoding.EncodeToString(key))
	}
	if o.Domain != "" {
		env = append(env, "MINIO_DOMAIN="+o.Domain)
	}
	var lastErr error
	for range 3 { // a free port can be taken between probing and binding
		if lastErr = m.start(tb, bin, args, env); lastErr == nil {
			return m
		}
	}
	tb.Fatalf("start MinIO: %v", lastErr)
	return nil
}

func (m *MinIO) start(tb testing.TB, bin string, args, env []string) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	console, err := freePort()
	if err != nil {
		return err
	}
	m.args, m.env = args, env
	m.bin, m.addr, m.console, m.dir = bin, fmt.Sprintf("127.0.0.1:%d", port), fmt.Sprintf("127.0.0.1:%d", console), tb.TempDir()
	if err := m.run(); err != nil {
		return err
	}
	tb.Cleanup(m.Kill)
	return nil
}

// Kill ends the server at once (SIGKILL), as a crash would; Restart
// brings it back.
func (m *MinIO) Kill() {
	if m.proc != nil {
		m.proc.stop()
		m.proc = nil
	}
}

// Restart starts a killed server again on the same address and data.
func (m *MinIO) Restart() error { return m.run() }

// run starts the server process on m's address and data directory and
// waits until it answers.
func (m *MinIO) run() error {
	addr := m.addr
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, m.bin, append(append([]string{"server", "--quiet", "--address", addr,
		"--console-address", m.console}, m.args...), m.dir)...)
	cmd.Env = append(append(os.Environ(), "MINIO_ROOT_USER="+m.AccessKey, "MINIO_ROOT_PASSWORD="+m.SecretKey,
		"MINIO_BROWSER=off", "MINIO_UPDATE=off", "MINIO_CI_CD=1"), m.env...)
	p, err := startProcess(cmd, cancel)
	if err != nil {
		return err
	}
	m.Endpoint = "http://" + addr
	client := &http.Client{Timeout: time.Second}
	if m.CAFile != "" {
		m.Endpoint = "https://" + addr
		tc, err := trusting(m.CAFile)
		if err != nil {
			p.stop()
			return err
		}
		client.Transport = &http.Transport{TLSClientConfig: tc}
	}
	if err := waitS3(client, m.Endpoint, p, 60*time.Second); err != nil {
		return fmt.Errorf("minio: %w", err)
	}
	m.proc = p
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// writeMinIOCert puts a server certificate for 127.0.0.1 where MinIO
// looks (public.crt, private.key) and its CA beside them (ca.pem).
func writeMinIOCert(dir string) error {
	c, err := selfsigned.Generate(selfsigned.LoopbackHosts(), 24*time.Hour)
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{"public.crt": c.CertPEM, "private.key": c.KeyPEM, "ca.pem": c.CAPEM} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// trusting is a TLS client configuration whose only root is caFile's.
func trusting(caFile string) (*tls.Config, error) {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, err
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s: no certificate", caFile)
	}
	return &tls.Config{RootCAs: roots}, nil
}
