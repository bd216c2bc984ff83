// Package s3server is the S3-compatible server objbench starts on 127.0.0.1
// when the user names no endpoint, and that `objbench server` runs for other
// tools (aws CLI, rclone, s3cmd, boto3).
//
// The S3 protocol (routing, XML, listing, multipart, ranges) is handled by
// github.com/johannesboyne/gofakes3. This package adds what a benchmark
// target needs on top: storage backends that do not serialise clients (the
// lock is held only to update maps; hashing and copying happen outside it),
// a directory backend that streams object bodies to files instead of holding
// them in memory, multipart uploads whose parts are never buffered whole,
// S3-style "<md5>-<parts>" ETags for multipart objects, and decoding of
// aws-chunked request bodies (signed and unsigned, with trailers), which
// gofakes3 only half supports.
//
// The server checks no signatures and accepts any credentials: it is for
// local measurement, never for data anyone else can reach. It still has an
// access key and secret (generated when not given) for clients that insist on
// having some. Only path-style addressing is served.
//
// What it does not implement it refuses with 501 NotImplemented rather
// than drop: server-side encryption, object tags, storage classes other
// than STANDARD (and versioning, through gofakes3).
//
// With Config.TLS it serves https with a certificate for the loopback
// names signed by a CA of its own, whose PEM file (Server.CAFile) clients
// trust.
//
// This package must not print, exit, or read flags or the environment: logs
// go to the *slog.Logger in Config, and only when one is given.
package s3server
