// Package probe asks an S3 store, in a few seconds, what it supports and
// how it behaves: addressing, TLS versions, listings (v1, v2, page size,
// order), multipart uploads and their limits, ETag forms, checksum
// algorithms (header, trailer, multipart composite and full-object),
// conditional writes and reads, versioning, object lock, tagging,
// server-side encryption, batch deletes, server-side copies, presigned
// URLs, throttling (503 SlowDown) and clock skew. Each answer is a Finding with a stable feature name, so
// a run can warn before it asks a store for what the store lacks (Needs).
//
// The probe writes only its own objects, under a prefix of its own in the
// bucket it is given, or in a bucket it creates and removes; it deletes
// exactly the keys (and versions) it recorded writing, never what a
// listing shows, and reports anything it could not remove. It changes a
// bucket's settings (versioning) only in a bucket it created.
//
// This package must not print, read flags or the environment.
package probe
