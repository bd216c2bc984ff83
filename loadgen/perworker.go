package loadgen

// A stream with per-worker bounds (workload.Bounds.PerWorker: COSBench's
// totalOps and totalBytes) gives each worker its own part up front, as
// COSBench's WorkAgent does: a worker stops once it has done its ops, or
// once the ops it finished moved its bytes (the op that crosses them
// completes: the check comes after each op). No shared count is drawn on,
// so a worker's part does not depend on how fast the others go. Of a run
// split across processes, each process's workers take the same parts of
// the whole stream's bounds: the parts add up over the processes.

// workerLimits is one worker's part of its stream's bounds (0: none).
type workerLimits struct {
	ops, bytes int64
}

func (l workerLimits) set() bool { return l.ops > 0 || l.bytes > 0 }

// ownLimit reports which of its own limits the worker has reached ("":
// none), counting the ops it finished and the bytes they moved.
func (w *worker) ownLimit() string {
	l := w.s.own
	switch {
	case l.ops > 0 && w.ownOps >= l.ops:
		return "ops"
	case l.bytes > 0 && w.ownBytes >= l.bytes:
		return "bytes"
	}
	return ""
}

// countOwn adds the op just recorded to the worker's own counts: every op
// finished, and the bytes of those that succeeded (COSBench's Mark counts
// bytes of successful samples only).
func (w *worker) countOwn() {
	w.ownOps++
	if w.res.Err == nil {
		w.ownBytes += w.res.Bytes
	}
}

// ownDone notes that a worker stopped at its own limit; once every worker
// of the stream has, the stream ends for that cause.
func (s *streamRun) ownDone(cause string) {
	if int(s.ownStopped.Add(1)) >= s.workers {
		s.end.finish(cause)
	}
}
