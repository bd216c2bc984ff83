// Package s3server is the S3-compatible server objbench starts on 127.0.0.1
// when the user names no endpoint, and that `objbench server` runs for other
// tools (aws CLI, rclone, s3cmd, boto3, warp).
//
// It speaks the S3 of today, path-style, over http or https (Config.TLS,
// with a certificate for the loopback names signed by a CA of its own,
// whose PEM file, Server.CAFile, clients trust):
//
//   - Signatures: AWS Signature Version 4 in the Authorization header or a
//     presigned URL, checked against the server's keys (Config.AccessKey,
//     SecretKey; generated when not given), its region (Config.Region,
//     us-east-1 by default: a request signed for another region or service
//     is 400 AuthorizationHeaderMalformed, naming the region, as S3
//     answers) and the clock (15 minutes); a signed payload's SHA-256, and
//     each chunk and trailer of a signed aws-chunked body, are checked as
//     the body arrives. Config.NoAuth accepts anything, on loopback only.
//   - Buckets: create (S3's name rules), head, delete (empty only), list,
//     location, versioning (enabled, suspended).
//   - Objects: PUT, GET and HEAD (ranges, ?partNumber, response-*
//     overrides), DELETE; ListObjects V1 and V2 (delimiter, markers and
//     tokens, max-keys, encoding-type=url, fetch-owner); user metadata
//     (keys returned in lower case, 2 KB at most), Content-*,
//     Cache-Control and Expires kept; storage classes that read at once
//     kept as a label.
//   - Flexible checksums (CRC32, CRC32C, CRC64NVME, SHA1, SHA256) as a
//     header or an aws-chunked trailer, on PUT and UploadPart, checked
//     before anything is stored (400 BadDigest), kept, and returned with
//     x-amz-checksum-mode: ENABLED; Content-MD5 checked; multipart
//     checksums COMPOSITE or FULL_OBJECT. An object written without one
//     gets S3's default CRC64NVME, computed on the first read that asks
//     for it rather than on every PUT.
//   - Conditional requests: If-Match, If-None-Match, If-Modified-Since,
//     If-Unmodified-Since on GET and HEAD (412, 304); If-None-Match: * and
//     If-Match on PUT, CopyObject and CompleteMultipartUpload (412, and 409
//     ConditionalRequestConflict when another write won while the body was
//     on the way); If-Match on DELETE; the x-amz-copy-source-if-*
//     conditions.
//   - Versions: version ids, GET/HEAD/DELETE by ?versionId, delete
//     markers, ListObjectVersions in pages.
//   - Object tags (x-amz-tagging, ?tagging), CopyObject (metadata and
//     tagging directives, a source version, not onto itself unchanged),
//     UploadPartCopy (a range), DeleteObjects (1,000 keys, quiet mode,
//     Content-MD5 or a checksum required).
//   - Multipart uploads: create, parts (5 MiB at least but the last),
//     list parts and uploads, complete (ETag "<md5>-<parts>"), abort.
//   - Encryption headers: SSE-S3 and SSE-KMS accepted and echoed; SSE-C
//     checked as S3 checks it (AES256, a 256-bit key and its MD5), and
//     every read must bring the same key (400 without, 403 with another).
//     Only the key's MD5 is kept; the key is never stored or logged, and
//     no byte is encrypted: the server measures, it keeps no secrets.
//   - Every answer has a request id (x-amz-request-id), every error S3's
//     XML body with its code, message, resource and request id.
//
// What it does not implement it refuses before reading the body or
// touching anything (routes.go): every other S3 sub-resource (?acl,
// ?policy, ?cors, ?lifecycle, ?object-lock, ?attributes, ?select ...) on
// any method is 501 NotImplemented, as are unknown query parameters,
// headers it would otherwise drop (a website redirect, an append, a
// GLACIER or DEEP_ARCHIVE class), MFA delete and object lock (S3's 400
// when the bucket has none); ACLs other than private are S3's 400
// AccessControlListNotSupported. Virtual-host addressing, POST uploads
// from browsers, IAM, STS and bucket policies are not served.
//
// Storage: memory (the default; a body grows by segments as it arrives,
// so an announced length reserves nothing) or a directory (Config.DataDir:
// objects as files, kept across restarts). Locks are held only to update
// maps; hashing and copying happen outside them. A client that sends
// nothing for Config.ReadTimeout while its headers or body are due is
// answered 400 RequestTimeout and disconnected; past Config.MaxConns
// connections new ones wait, and the log says so.
//
// This package must not print, exit, or read flags or the environment: logs
// go to the *slog.Logger in Config, and only when one is given.
package s3server
