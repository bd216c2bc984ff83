// Package merge combines the result files of a run's workers into one
// result, as if one process had run the whole: the only aggregation path
// (a local run is a one-worker merge, so local and distributed runs can
// never disagree). Every per-second record is put on the store's clock
// and summed, histograms are added (never averaged), the window is the
// part every worker measured, and every rate and percentile is computed
// again from the merged records. A merge that lacks a worker, or holds one
// whose run did not end well, is partial (result.Run.Partial).
//
// Sources merges files as they are stored, reading each one's packed
// seconds frame by frame in the order of the merged seconds (a 100-worker
// hour in about two seconds: bench/merge.sh, docs/design/041-merge.md);
// Runs merges results already in memory.
//
// This package reads and writes only result types; how seconds are
// packed is internal/resultpack's. It must not print, read flags or the
// environment.
package merge
