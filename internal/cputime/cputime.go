// Package cputime reads the CPU time this process has used: what objbench
// reports as its own client CPU beside a run's ops.
package cputime
