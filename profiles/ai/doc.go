// Package ai emulates the storage side of AI work on any target objbench
// measures: a training job's data loaders and its accelerators'
// utilisation (AU), as DLIO and MLPerf Storage do; checkpoints saved and
// loaded by many ranks; lakehouse scans of Parquet-shaped objects.
//
// It turns a workload of its catalog (the parameters of MLPerf Storage's
// and DLIO's configuration files, each entry naming its source) into an
// ordinary workload.Spec and the loadgen.Scripts that drive its streams,
// so a run of it is an ordinary run: any target, many workers, one result
// file that report, compare and merge read. Its own figures (AU per
// accelerator and epoch, checkpoint durations per rank, scans per query)
// go into the result's steps (result.Training, result.Checkpoint,
// result.Lake).
//
// This package must not print, exit, or read flags or the environment.
package ai
