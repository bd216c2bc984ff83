package result

// COSBenchRate is one op's throughput and bandwidth of a stream by
// COSBench's formula: each worker's successful ops (bytes) over its own
// window, from the start of its first op counted to the end of its last,
// summed over the workers (github.com/intel-cloud/cosbench,
// dev/cosbench-core/src/com/intel/cosbench/bench/Metrics.java, convert;
// Aggregator.java, getThroughput). On a short stage, where the workers
// start and stop apart, it differs from the stream's own rates, which are
// over one window common to every worker.
type COSBenchRate struct {
	Op          string  `json:"op"`
	OpsPerSec   float64 `json:"ops_per_s"`
	BytesPerSec float64 `json:"bytes_per_s"`
}

// COSBenchRateOf is the stream's COSBench rate of op, and whether it has
// one.
func (s *Stream) COSBenchRateOf(op string) (COSBenchRate, bool) {
	for _, r := range s.COSBench {
		if r.Op == op {
			return r, true
		}
	}
	return COSBenchRate{}, false
}
