// Package testenv starts the real servers integration tests run against:
// a MinIO process (installed by scripts/install-minio.sh) on 127.0.0.1
// with its own data directory and credentials, stopped when the test ends.
// Only tests import it.
package testenv
