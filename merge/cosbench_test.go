package merge_test

import (
	"math"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/resulttest"
	"github.com/objbench/objbench/merge"
	"github.com/objbench/objbench/result"
)

// A merge adds the workers' COSBench rates, as COSBench's Aggregator sums
// its workers' throughputs (dev/cosbench-core/src/com/intel/cosbench/bench/
// Aggregator.java, getThroughput): op by op, an op only some workers ran
// kept, and a merged file merges again.
func TestMergeSumsCOSBenchRates(t *testing.T) {
	parts, _ := resulttest.SplitRun(t, 3, time.Second, 5)
	for i, p := range parts {
		p.Steps[0].Streams[0].COSBench = []result.COSBenchRate{{Op: "GET", OpsPerSec: float64(100 * (i + 1)), BytesPerSec: float64(1000 * (i + 1))}}
	}
	parts[2].Steps[0].Streams[0].COSBench = append(parts[2].Steps[0].Streams[0].COSBench, result.COSBenchRate{Op: "PUT", OpsPerSec: 7, BytesPerSec: 70})
	merged, err := merge.Runs(parts[:2], nil)
	if err != nil {
		t.Fatal(err)
	}
	all, err := merge.Runs([]*result.Run{merged, parts[2]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := all.Steps[0].Streams[0]
	get, okGet := s.COSBenchRateOf("GET")
	put, okPut := s.COSBenchRateOf("PUT")
	if !okGet || !okPut || math.Abs(get.OpsPerSec-600) > 1e-9 || math.Abs(get.BytesPerSec-6000) > 1e-9 || put.OpsPerSec != 7 || put.BytesPerSec != 70 {
		t.Errorf("merged COSBench rates %+v; want GET 600 op/s and 6000 B/s, PUT 7 and 70", s.COSBench)
	}
	if p := parts[0].Steps[0].Streams[0].COSBench[0]; p.OpsPerSec != 100 {
		t.Errorf("the merge changed a part's rates: %+v", p)
	}
}
