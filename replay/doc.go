// Package replay reads real traffic logs into one stream of records, turns
// a stream into a schedule of ops with their offsets from the first, and
// maps the keys of a log into a run's namespace.
//
// Readers: AWS S3 server access logs, CloudTrail S3 data events (JSON
// files of Records, streamed with encoding/json's token API), MinIO's
// `mc admin trace --json` output and objbench's own op log (package
// oplog). Input is files or directories (walked in lexical order), plain,
// gzip or zstd (told by their first bytes); the format is recognised per
// file from its first non-empty line unless Options.Format names it.
//
// Nothing is dropped silently: an entry that cannot be replayed (an
// operation objbench does not issue, a malformed line, no key) is counted
// by reason with the first place it was seen (Stats.Skipped), and the
// steps of a multipart upload that its completion stands for are counted
// apart (Stats.Merged). With Options.Strict the first skipped entry is an
// error naming file:line.
//
// Memory is bounded: one entry is decoded at a time, Schedule holds at
// most a window of records to put them in time order, and the multipart
// bookkeeping keeps at most maxUploads open uploads.
//
// Package synth (replay/synth) turns a stream of records into a workload
// file. This package must not print, touch storage, read flags or the
// environment, or issue any request.
package replay
