// Package run assembles and runs one benchmark: it opens the target (an S3
// endpoint, a directory, or the embedded server), runs a workload on it
// with the load generator while the machine is watched, feeds an optional
// live view, and returns the result file's record of it. The objbench
// command is a shell around it; a Go program gets the same run, and the
// same result file, by calling Open and Run.
//
// This package must not print, exit, or read flags or the environment
// (the AWS SDK's credential chain, which it uses, reads its own).
package run
