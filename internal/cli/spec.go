package cli

import (
	"time"

	"github.com/objbench/objbench/workload"
)

// buildSpec turns one-op flags into a workload (workload.Simple): prepare
// what the op needs, run it once per concurrency value, clean up.
func buildSpec(op string, o *benchOptions, p parsed) workload.Spec {
	bounds := workload.Bounds{Duration: o.duration, Ops: o.ops, Bytes: p.bytes}
	if bounds == (workload.Bounds{}) {
		bounds.Duration = 10 * time.Second
		if op == "run" {
			bounds.Duration = 5 * time.Second
		}
	}
	s := workload.Simple{Name: op, Mix: p.mix, Concurrency: p.conc, Bounds: bounds, Size: p.size, RangeSize: p.rangeSize,
		Objects: o.objects, Existing: o.noPrepare, Prefix: o.prefix, Source: p.source, Rates: p.rates, Fsync: p.fsync, S3: p.s3,
		NoCleanup: o.noCleanup, BatchCleanup: o.s3.batchCleanup}
	if p.source != "" {
		s.Objects = o.corpus.maxObjects
	}
	return s.Spec()
}
