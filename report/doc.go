// Package report owns the result file (a versioned JSON document: spec, tool
// and machine facts, per-second records, totals) and renders it for people:
// tables and CSV. Every rendering reads only a Result, so old result files
// report the same way as new runs.
//
// It must not run workloads or touch storage.
package report
