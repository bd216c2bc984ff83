package result_test

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/objbench/objbench/result"
)

func TestJoinOutages(t *testing.T) {
	for _, c := range []struct {
		name     string
		in, want []result.Outage
		down     float64
	}{
		{"none", nil, nil, 0},
		{"apart", []result.Outage{{Start: 5, End: 6, OpsLost: 2}, {Start: 1, End: 2, OpsLost: 3}},
			[]result.Outage{{Start: 1, End: 2, OpsLost: 3}, {Start: 5, End: 6, OpsLost: 2}}, 2},
		{"overlapping", []result.Outage{{Start: 1, End: 3, OpsLost: 3}, {Start: 2, End: 4, OpsLost: 4, Open: true}},
			[]result.Outage{{Start: 1, End: 4, OpsLost: 7, Open: true}}, 3},
		{"inside", []result.Outage{{Start: 1, End: 5, OpsLost: 1}, {Start: 2, End: 3, OpsLost: 1, Open: true}},
			[]result.Outage{{Start: 1, End: 5, OpsLost: 2}}, 4},
	} {
		got := result.JoinOutages(c.in)
		if !reflect.DeepEqual(got, c.want) || math.Abs(result.Unavailable(c.in)-c.down) > 1e-9 {
			t.Errorf("%s: joined %+v (%v s unavailable), want %+v (%v s)", c.name, got, result.Unavailable(c.in), c.want, c.down)
		}
	}
}

// Workers' outages go on the store's clock in a merge: the same store
// outage seen by two workers whose clocks differ is one period.
func TestMergeJoinsWorkersOutages(t *testing.T) {
	parts, _ := splitRun(t, 2, 3*time.Second, 5)
	var abs [2]float64 // each worker's outage start on the store's clock
	for i, p := range parts {
		st := &p.Steps[0]
		local := 1.0 + 0.1*float64(i) // seconds after the worker's own step start
		st.Streams[0].Outages = []result.Outage{{Start: local, End: local + 1, OpsLost: 5}}
		abs[i] = st.Start.Add(p.Worker.ClockOffset).Sub(storeT0).Seconds() + local
	}
	merged, err := result.Merge(parts, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := merged.Steps[0]
	got := st.Streams[0].Outages
	want0 := st.Start.Sub(storeT0).Seconds()
	if len(got) != 1 || got[0].OpsLost != 10 || math.Abs(got[0].Start+want0-min(abs[0], abs[1])) > 0.011 ||
		math.Abs(got[0].End+want0-max(abs[0], abs[1])-1) > 0.011 {
		t.Errorf("merged outages %+v; want one from %.3f to %.3f s on the store's clock with 10 ops lost", got, min(abs[0], abs[1]), max(abs[0], abs[1])+1)
	}
}
