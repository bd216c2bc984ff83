package result_test

import (
	"math"
	"reflect"
	"testing"

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
