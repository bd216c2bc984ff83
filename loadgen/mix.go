package loadgen

import (
	"fmt"
	"math/rand/v2"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/workload"
)

// mix picks ops by weight.
type mix struct {
	ops []metrics.Op
	cum []int // cumulative weights
}

func newMix(ws []workload.OpWeight) (mix, error) {
	var m mix
	total := 0
	for _, w := range ws {
		op, err := metrics.ParseOp(w.Op)
		if err != nil {
			return mix{}, err
		}
		if w.Weight <= 0 {
			return mix{}, fmt.Errorf("operation %s has weight %d", w.Op, w.Weight)
		}
		total += w.Weight
		m.ops = append(m.ops, op)
		m.cum = append(m.cum, total)
	}
	return m, nil
}

// pick returns the index of an op, chosen by weight.
func (m mix) pick(rng *rand.Rand) int {
	if len(m.ops) == 1 {
		return 0
	}
	r := rng.IntN(m.cum[len(m.cum)-1])
	for i, c := range m.cum {
		if r < c {
			return i
		}
	}
	return len(m.ops) - 1
}

func (m mix) has(op metrics.Op) bool {
	for _, o := range m.ops {
		if o == op {
			return true
		}
	}
	return false
}
