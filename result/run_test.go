package result_test

import (
	"reflect"
	"testing"

	"github.com/objbench/objbench/result"
)

func TestFailedMainSteps(t *testing.T) {
	step := func(kind string, n int, ops, ok int64) result.Step {
		return result.Step{Stage: kind, Kind: kind, Step: n, Streams: []result.Stream{{
			Totals: []result.OpTotal{{Op: "GET", Ops: ops, OK: ok}}}}}
	}
	r := &result.Run{Steps: []result.Step{
		step(result.KindPrepare, 0, 10, 0), // prepare failures are not a main step's
		step(result.KindMain, 0, 100, 3),   // some succeeded
		step(result.KindMain, 1, 50, 0),    // all failed
		step(result.KindMain, 2, 0, 0),     // nothing issued
	}}
	if got, want := r.FailedMainSteps(), []string{"main step 2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("FailedMainSteps = %v, want %v", got, want)
	}
}
