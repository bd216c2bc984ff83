// Package oplog is objbench's own op log: one JSON object per line for
// every operation a run issues, with its absolute start time (RFC 3339,
// UTC, nanoseconds), op name (metrics' names: PUT, GET, STAT, DELETE,
// LIST, MULTIPART, RANGE-GET), bucket, key, size, range, HTTP status or
// error class, latency and time to first byte in microseconds, the
// intended start of an open-loop op, worker and stream. A line looks like
//
//	{"time":"2026-03-01T10:00:00.000123Z","op":"GET","bucket":"b","key":"k/1","size":4096,"status":200,"latency_us":812,"ttfb_us":640,"worker":3,"stream":"main"}
//
// Fields that are unknown or do not apply are left out. The file is
// plain, gzip (.gz) or zstd (.zst), chosen by its name when written and
// recognised by its first bytes when read.
//
// Writer is meant for the hot path of a load generator: workers hand it
// records that it encodes without reflection or allocation into per-shard
// buffers, which one goroutine compresses and writes; memory is bounded
// (a worker waits when the writer falls behind, never grows a queue).
// Lines of different workers are not in time order: they are written as
// ops end and buffers fill, so a reader that needs order (package replay's
// Schedule) sorts within a window.
//
// It must not print, read flags or the environment, or hold a record it
// was handed beyond the call.
package oplog
