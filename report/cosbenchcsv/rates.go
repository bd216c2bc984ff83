package cosbenchcsv

import (
	"fmt"
	"math"

	"github.com/objbench/objbench/result"
)

// rates are the metric's throughput and bandwidth as COSBench computes
// them (result.COSBenchRate: each worker's ops over its own window,
// summed), or objbench's, over the window common to the workers, for a
// result written before version 10.
func (m metric) rates() (ops, bytes float64) {
	if r, ok := m.stream.COSBenchRateOf(m.t.Op); ok {
		return r.OpsPerSec, r.BytesPerSec
	}
	return m.t.OpsPerSec, m.t.BytesPerSec
}

// RateDifferences says, for each operation whose throughput by COSBench's
// formula (in the COSBench CSV) and by objbench's (in its own tables)
// differ by more than a tenth, both figures and why. They agree on a long
// steady stage; on a short one, where the workers start and stop apart,
// COSBench's formula counts each worker's own start-up and tail.
func RateDifferences(r *result.Run) ([]string, error) {
	var out []string
	for _, s := range stagesOf(r) {
		ms, err := metricsOf(s)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			cos, _ := m.rates()
			own := m.t.OpsPerSec
			if own <= 0 && cos <= 0 || math.Abs(cos-own) <= 0.1*math.Max(cos, own) {
				continue
			}
			out = append(out, fmt.Sprintf("%s %s (work %d): Throughput %s op/s in the COSBench CSV (COSBench's formula: each worker's ops over its own first start to last end, summed), %s op/s in objbench's table (one window common to all workers)",
				s.id, m.name, m.work, num(cos), num(own)))
		}
	}
	return out, nil
}
