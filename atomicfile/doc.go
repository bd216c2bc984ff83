// Package atomicfile writes files that readers never see half-written: the
// content goes to a temporary file beside the target, which is renamed into
// place only when complete. Library packages (report, dataset) and the CLI
// write their result files, reports and datasets through it.
//
// It must not leave a temporary file behind or a target half-replaced on
// any error, and it does not fsync: a write is atomic against readers, not
// durable against a crash.
package atomicfile
