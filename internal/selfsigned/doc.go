// Package selfsigned makes a throwaway certificate authority and a server
// certificate it signs (ECDSA P-256), for serving https on loopback: the
// embedded S3 server's --tls, MinIO in tests, tests' own servers. Clients
// trust the CA's PEM file.
//
// It is for local measurement only: keys live as long as the process or
// the directory they are written to, and nothing here is meant to be
// trusted beyond the machine. This package must not print or read flags.
package selfsigned
