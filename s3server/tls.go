package s3server

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/objbench/objbench/internal/selfsigned"
)

// certValidity is how long a generated certificate is valid: long enough
// for a --cert-dir kept between runs, short enough to be throwaway.
const certValidity = 90 * 24 * time.Hour

// serverTLS loads the certificate in dir (ca.pem, cert.pem, key.pem), or
// generates one for the loopback names and writes it there. dir "" is a
// new temporary directory, removed by Close (cleanup).
func serverTLS(dir string) (conf *tls.Config, caFile string, cleanup func(), err error) {
	cleanup = func() {}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "objbench-tls-"); err != nil {
			return nil, "", nil, fmt.Errorf("s3server: %w", err)
		}
		tmp := dir
		cleanup = func() { _ = os.RemoveAll(tmp) }
	}
	files := selfsigned.Files{CA: filepath.Join(dir, "ca.pem"), Cert: filepath.Join(dir, "cert.pem"), Key: filepath.Join(dir, "key.pem")}
	kp, err := loadOrGenerate(dir, &files)
	if err != nil {
		cleanup()
		return nil, "", nil, err
	}
	conf = &tls.Config{
		MinVersion:   tls.VersionTLS12,
		Certificates: []tls.Certificate{kp},
		NextProtos:   []string{"http/1.1"}, // S3 clients speak HTTP/1.1
	}
	return conf, files.CA, cleanup, nil
}

// loadOrGenerate loads the three files, or generates them when none
// exists; some but not all is an error (never overwrite a user's file).
func loadOrGenerate(dir string, files *selfsigned.Files) (tls.Certificate, error) {
	var missing []string
	for _, p := range []string{files.CA, files.Cert, files.Key} {
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			missing = append(missing, filepath.Base(p))
		} else if err != nil {
			return tls.Certificate{}, fmt.Errorf("s3server: TLS: %w", err)
		}
	}
	switch len(missing) {
	case 0:
		kp, err := tls.LoadX509KeyPair(files.Cert, files.Key)
		if err != nil {
			return tls.Certificate{}, fmt.Errorf("s3server: TLS certificate in %s: %w", dir, err)
		}
		return kp, nil
	case 3:
		c, err := selfsigned.Generate(selfsigned.LoopbackHosts(), certValidity)
		if err == nil {
			*files, err = c.WriteFiles(dir)
		}
		if err != nil {
			return tls.Certificate{}, fmt.Errorf("s3server: TLS certificate: %w", err)
		}
		return c.TLSCertificate()
	}
	return tls.Certificate{}, fmt.Errorf("s3server: TLS: %s has some of ca.pem, cert.pem, key.pem but not %v: give all three, or none to generate them", dir, missing)
}
