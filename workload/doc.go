// Package workload describes what to run: a Spec of stages run in order,
// each holding streams that run at the same time, each stream a mix of
// operations over a key space with sizes, concurrency (a list is a sweep)
// and bounds. CLI flags and workload files both produce a Spec.
//
// It must not touch storage or time anything; Validate reports every
// problem at once.
package workload
