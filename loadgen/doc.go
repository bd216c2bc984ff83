// Package loadgen runs a workload.Spec against a storage.Store: stages in
// order, streams of a stage side by side, one step per sweep value, workers
// paced by a Pacer, every op recorded into metrics. Everything a run creates
// lives under its namespace (objbench/<run-id>/), and cleanup deletes only
// what it lists there.
//
// It must not print or read flags; callers observe progress through the
// callbacks in Config.
package loadgen
