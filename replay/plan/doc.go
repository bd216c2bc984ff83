// Package plan turns a trace into a replay the load generator runs: a
// first pass over the trace finds the objects it reads before it writes
// them (prepared first, each once, with the size the trace gives), counts
// its ops and what the source recorded of their latency; a second pass
// streams the ops, keys mapped into the run's namespace, at their offsets
// (loadgen.ReplaySource). Memory grows with the distinct keys of the
// trace (the first pass must know which were written), not its length.
//
// This package must not print, read flags or the environment, or issue a
// request: objbench's replay command and run.Run do those.
package plan
