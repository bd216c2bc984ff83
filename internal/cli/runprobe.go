package cli

import (
	"context"
	"strings"
	"time"

	"github.com/objbench/objbench/probe"
	"github.com/objbench/objbench/run"
	"github.com/objbench/objbench/workload"
)

// warnLacking asks an S3 target, before the run, for the features the
// workload needs beyond plain requests (probe.Needs) and warns of each
// the store lacks: the run would otherwise learn it op by op. A plain
// workload asks nothing. The probe writes only its own objects, in the
// run's bucket, and removes them.
func warnLacking(ctx context.Context, tgt *run.Target, sp workload.Spec, note, warn func(string, ...any)) {
	needs := probe.Needs(sp)
	c, ok := tgt.S3Config()
	if len(needs) == 0 || !ok {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	lines, err := probe.Lacking(ctx, c, needs)
	if err != nil {
		note("could not ask the store beforehand whether it supports %s: %v", strings.Join(needs, ", "), err)
		return
	}
	for _, l := range lines {
		warn("the store lacks what this run asks for (objbench probe, before the run): %s", l)
	}
}
