package report_test

import (
	"reflect"
	"testing"

	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/report"
	"github.com/objbench/objbench/workload"
)

func TestFailedMainSteps(t *testing.T) {
	step := func(kind workload.StageKind, n int, ops, ok int64) loadgen.StepResult {
		return loadgen.StepResult{Stage: string(kind), Kind: kind, Step: n, Streams: []loadgen.StreamResult{{
			Totals: []metrics.OpTotal{{Op: "GET", Ops: ops, OK: ok}}}}}
	}
	r := &report.Result{Steps: []loadgen.StepResult{
		step(workload.KindPrepare, 0, 10, 0), // prepare failures are not a main step's
		step(workload.KindMain, 0, 100, 3),   // some succeeded
		step(workload.KindMain, 1, 50, 0),    // all failed
		step(workload.KindMain, 2, 0, 0),     // nothing issued
	}}
	if got, want := r.FailedMainSteps(), []string{"main step 2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("FailedMainSteps = %v, want %v", got, want)
	}
}
