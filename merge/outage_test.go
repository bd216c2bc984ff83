package merge_test

import (
	"math"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/resulttest"
	"github.com/objbench/objbench/merge"
	"github.com/objbench/objbench/result"
)

// Workers' outages go on the store's clock in a merge: the same store
// outage seen by two workers whose clocks differ is one period.
func TestMergeJoinsWorkersOutages(t *testing.T) {
	parts, _ := resulttest.SplitRun(t, 2, 3*time.Second, 5)
	var abs [2]float64 // each worker's outage start on the store's clock
	for i, p := range parts {
		st := &p.Steps[0]
		local := 1.0 + 0.1*float64(i) // seconds after the worker's own step start
		st.Streams[0].Outages = []result.Outage{{Start: local, End: local + 1, OpsLost: 5}}
		abs[i] = st.Start.Add(p.Worker.ClockOffset).Sub(resulttest.StoreT0).Seconds() + local
	}
	merged, err := merge.Runs(parts, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := merged.Steps[0]
	got := st.Streams[0].Outages
	want0 := st.Start.Sub(resulttest.StoreT0).Seconds()
	if len(got) != 1 || got[0].OpsLost != 10 || math.Abs(got[0].Start+want0-min(abs[0], abs[1])) > 0.011 ||
		math.Abs(got[0].End+want0-max(abs[0], abs[1])-1) > 0.011 {
		t.Errorf("merged outages %+v; want one from %.3f to %.3f s on the store's clock with 10 ops lost", got, min(abs[0], abs[1]), max(abs[0], abs[1])+1)
	}
}
