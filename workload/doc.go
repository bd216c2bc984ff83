// Package workload describes what to run: a Spec of stages run in order
// (init, prepare, main, cleanup, dispose, delay), each holding streams that
// run at the same time, each stream a mix of operations with ratios over a
// key space (buckets, prefix, numbered objects drawn by a selector, or a
// pool), with sizes, concurrency and bounds; numeric fields given as lists
// are sweeps. CLI flags, YAML files (DecodeYAML) and COSBench workload XML
// (DecodeCOSBench) all produce a Spec; WritePlan describes one, Scale
// shrinks one.
//
// It must not touch storage or time anything; Validate reports every
// problem at once, with file:line for specs read from files.
package workload
