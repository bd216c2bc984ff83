// Package s3 is a storage.Store for S3-compatible endpoints (AWS S3, MinIO,
// Ceph RGW, the embedded server...), built for measuring them rather than for
// general use.
//
// The hot operations (GET, ranged GET, PUT, HEAD, DELETE, part uploads) are
// plain HTTP/1.1 requests, sent by default on the caller's goroutine by the
// direct transport (direct.go; net/http's Transport with HTTPClient "std" or
// a proxy), signed by this package's own SigV4 signer (sigv4.go) with the
// payload hash UNSIGNED-PAYLOAD. The SDK's S3 client costs several times the
// client CPU per request, and even its standalone signer took about 14% of
// it, which would make the client, not the endpoint, the thing being
// measured (docs/design/001-s3-request-path.md has the numbers). Tests prove the signatures
// byte-identical to the SDK's. The SDK's config package is still used once,
// in New, to resolve credentials (env, shared files, profiles, SSO...) and
// the region the way the aws CLI does.
//
// A Store owns its HTTP transport: an idle pool at least as large as the
// expected concurrency, no compression, HTTP/1.1 only, every response body
// drained and closed so connections are reused, and counters of dials and
// requests (ConnStats) so a report can show connection reuse.
//
// Options beyond a plain request are asked for per op (storage.PutOptions,
// GetOptions: checksums, conditions, versions, encryption...) or per Store
// (Config: connection limits, keep-alive, TLS), and the zero values are
// plain requests: a checksum is computed only when one is asked for.
// Every request's phases (DNS, connect, TLS, send, wait, receive) go into
// the caller's storage.Trace without allocating.
//
// This package must not print, read flags or environment variables itself
// (the SDK's config loader does, by design), or retry: retries and rate
// limits are wrappers around a Store, and a failed op is a result.
// Credentials never appear in the errors it returns.
package s3
