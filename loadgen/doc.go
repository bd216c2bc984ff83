// Package loadgen runs a workload.Spec against a storage.Store: stages in
// order, streams of a stage side by side, one step per sweep value, workers
// paced by a Pacer, every op recorded into metrics. Everything a run writes
// lives under its namespace (objbench/<run-id>/) inside its buckets; it
// creates a bucket only when missing and removes only buckets it created,
// and cleanup deletes only what it wrote. Key spaces that name buckets are
// opened through Config.OpenBucket.
//
// It must not print or read flags; callers observe progress through the
// callbacks in Config.
package loadgen
