package run_test

import (
	"context"
	"fmt"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/run"
	"github.com/objbench/objbench/workload"
)

// Run a benchmark from Go: 200 GETs of 4 KiB objects with 4 workers,
// against the embedded S3 server (a TargetConfig with no endpoint, bucket
// or URL starts it in this process). Name an Endpoint and Bucket, or a URL
// of file:///DIR, to measure a real store.
func ExampleRun() {
	ctx := context.Background()
	tgt, err := run.Open(ctx, run.TargetConfig{}, func(string, ...any) {})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer tgt.Close(ctx)
	sp := workload.Op(workload.OpGet, 4<<10, workload.Bounds{Ops: 200}, 4)
	res, err := run.Run(ctx, sp, tgt, run.Options{NoWatch: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, st := range res.Steps {
		for _, s := range st.Streams {
			for _, t := range s.Totals {
				fmt.Printf("%s %s: %d ops, %d ok, %d workers\n", st.Kind, t.Op, t.Ops, t.OK, s.Concurrency)
			}
		}
	}
	fmt.Println("cleaned up:", res.CleanedUp, "- p99 measured:", mainP99(res) > 0)
	// Output:
	// prepare PUT: 200 ops, 200 ok, 4 workers
	// main GET: 200 ops, 200 ok, 4 workers
	// cleanup DELETE: 200 ops, 200 ok, 4 workers
	// cleaned up: true - p99 measured: true
}

func mainP99(r *result.Run) int64 {
	for _, st := range r.Steps {
		if st.Kind == result.KindMain {
			return st.Streams[0].Totals[0].Latency.P99
		}
	}
	return 0
}
