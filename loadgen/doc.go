// Package loadgen runs a workload.Spec against a storage.Store: stages in
// order, streams of a stage side by side, one step per sweep value, workers
// closed loop (back to back) or open loop (a Schedule dispatched to workers
// that grow as slots come due), every op recorded into metrics, every step
// returned as the result file records it. Everything a run writes
// lives under its namespace (objbench/<run-id>/) inside its buckets; it
// creates a bucket only when missing and removes only buckets it created,
// and cleanup deletes only what it wrote. Key spaces that name buckets are
// opened through Config.OpenBucket.
//
// A run (run.go: its stages and steps, step.go: one step's streams) is
// composed of parts that each keep one side of it: its stores and
// buckets (stores.go; their lifecycle, buckets.go), its key pools and
// payload data (data.go, keys.go, space.go), its failure policy
// (failure.go) and its cleanup ledger (ledger.go; cleanup.go and
// cleanup_sweep.go delete).
//
// It must not print or read flags; callers observe progress through the
// callbacks in Config.
package loadgen
