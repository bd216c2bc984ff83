// Package metrics turns operation results into trustworthy numbers: each
// worker records into its own Recorder (HDR histograms per op for the current
// second, counters), a Series per step merges them once per second into
// per-second records with encoded histograms, and Summarize derives totals
// (throughput over the common window, percentiles from merged histograms)
// from those records alone — the same path whether they come from one
// process or are merged from many workers.
//
// Memory stays flat in run length: a worker holds at most one second of
// histograms per op; finalized seconds are kept only in encoded form.
// This package must not print, start goroutines of its own or do I/O.
package metrics
