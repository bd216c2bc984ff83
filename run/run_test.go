package run_test

import (
	"context"
	"testing"
	"time"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/run"
	"github.com/objbench/objbench/storage/mem"
	"github.com/objbench/objbench/workload"
)

// A Go program runs a workload and gets a whole result file's record,
// without the objbench command: every step, totals that add up, the
// machine and its verdict, the spec that ran, and a file that reads back.
func TestRunOnMemStoreGivesACompleteResult(t *testing.T) {
	stream := workload.Stream{Name: "mixed", Mix: []workload.OpWeight{{Op: "get", Weight: 3}, {Op: "put", Weight: 1}},
		Concurrency: []int{4}, Bounds: workload.Bounds{Duration: 1500 * time.Millisecond}, Size: 4096,
		Objects: workload.KeySpace{Prefix: "m/", Count: 50}}
	prep := stream
	prep.Name, prep.Mix, prep.Bounds = "prepare", nil, workload.Bounds{}
	sp := workload.Spec{Name: "lib", Stages: []workload.Stage{
		{Name: "prepare", Kind: workload.KindPrepare, Streams: []workload.Stream{prep}},
		{Name: "main", Kind: workload.KindMain, Streams: []workload.Stream{stream}},
		{Name: "cleanup", Kind: workload.KindCleanup},
	}}
	tgt := run.NewTarget(mem.New(), result.Target{Kind: "mem"})
	var seconds int
	res, err := run.Run(context.Background(), sp, tgt, run.Options{Tool: result.Tool{Name: "lib-test", Version: "1"},
		OnSecond: func(string, result.Second) { seconds++ }})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Steps) != 3 || !res.CleanedUp || res.Schema != result.Version || res.Target.Namespace != "objbench/"+res.RunID+"/" {
		t.Fatalf("%d steps, cleaned up %v, schema %d, namespace %q", len(res.Steps), res.CleanedUp, res.Schema, res.Target.Namespace)
	}
	main := res.Steps[1].Streams[0]
	var ops, ok int64
	for _, tot := range main.Totals {
		ops, ok = ops+tot.Ops, ok+tot.OK
		if tot.OpsPerSec <= 0 || tot.Latency.Count != tot.OK {
			t.Errorf("%s: %.0f ops/s, %d latencies for %d ok", tot.Op, tot.OpsPerSec, tot.Latency.Count, tot.OK)
		}
	}
	if ops == 0 || ok != ops || seconds == 0 {
		t.Errorf("main: %d ops, %d ok, %d seconds seen live", ops, ok, seconds)
	}
	if res.Machine.CPUs == 0 || res.System == nil || len(res.System.Verdicts) != 1 || len(res.Spec) == 0 {
		t.Errorf("machine %+v, system %v, spec %d bytes", res.Machine, res.System != nil, len(res.Spec))
	}
	path := t.TempDir() + "/r.json"
	if err := result.Write(path, res); err != nil {
		t.Fatal(err)
	}
	back, err := result.Read(path)
	if err != nil || back.Steps[1].Streams[0].Totals[0].OpsPerSec != main.Totals[0].OpsPerSec {
		t.Errorf("read back: %v", err)
	}
}
