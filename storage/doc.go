// Package storage defines what objbench measures: a Store of objects addressed
// by key, with optional capabilities (multipart uploads, bucket management) as
// small extra interfaces, and typed errors every backend maps its failures to.
//
// Implementations live in sub-packages (s3, fs, mem) and all pass the one
// conformance suite in storage/storagetest. This package must not print, read
// flags or environment, or know about load generation.
package storage
