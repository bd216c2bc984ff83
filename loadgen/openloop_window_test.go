package loadgen_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/storage/mem"
	"github.com/objbench/objbench/workload"
)

// Workers claim slots ahead of time (64 workers at 500/s: 128 ms ahead);
// slots claimed but never due when the step stops are not part of the
// schedule's window, or the achieved rate would read ~11% low in a 1 s
// step.
func TestOpenLoopWindowEndsAtTheLastDueSlot(t *testing.T) {
	sp := spec(workload.Stream{Name: "g", Mix: []workload.OpWeight{{Op: "get", Weight: 1}}, Concurrency: []int{64},
		Bounds: workload.Bounds{Duration: time.Second}, Objects: workload.KeySpace{Prefix: "g/", Count: 20},
		Size: 1024, Rate: &workload.Rate{PerSec: 500}})
	out, err := loadgen.Run(context.Background(), config(t, mem.New(), sp))
	if err != nil {
		t.Fatal(err)
	}
	get := total(t, out.Steps[1], "GET")
	w := out.Steps[1].Streams[0].Window
	if math.Abs(get.OpsPerSec/500-1) > 0.03 || w.End > 1.01 {
		t.Errorf("achieved %.1f ops/s over window %+v, want 500 within 3%% and a window ending by the 1 s stop", get.OpsPerSec, w)
	}
}
