package loadgen

import (
	"time"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/result"
)

// COSBench's throughput is each worker's own: its successful ops over its
// window, from the start of its first op counted to the end of its last,
// summed over the workers (dev/cosbench-driver/src/com/intel/cosbench/
// driver/agent/WorkAgent.java: frsample, lrsample and doSummary;
// dev/cosbench-core/src/com/intel/cosbench/bench/Metrics.java, convert;
// Aggregator.java, getThroughput). Each worker keeps what that needs, and
// the stream adds it up as its workers stop (result.COSBenchRate).

// workerSpan is what one worker keeps for COSBench's rates.
type workerSpan struct {
	first, last time.Time // start of the first op counted, end of the last
	ok, bytes   [metrics.NumOps]int64
}

// note adds the op just recorded.
func (ws *workerSpan) note(r *metrics.Result) {
	if ws.first.IsZero() {
		ws.first = r.Start
	}
	ws.last = r.End
	if r.Err == nil {
		ws.ok[r.Op]++
		ws.bytes[r.Op] += r.Bytes
	}
}

// streamRates sums the workers' COSBench rates, by op.
type streamRates struct {
	ops, bytes [metrics.NumOps]float64
	seen       [metrics.NumOps]bool
}

// addRates adds a stopped worker's rates to the stream's.
func (s *streamRun) addRates(w *worker) {
	ws := &w.span
	window := ws.last.Sub(ws.first).Seconds()
	s.ratesMu.Lock()
	defer s.ratesMu.Unlock()
	for op := range metrics.NumOps {
		if ws.ok[op] == 0 {
			continue
		}
		s.rates.seen[op] = true
		if window > 0 { // COSBench divides by a window of 0 ms too, and gets infinity
			s.rates.ops[op] += float64(ws.ok[op]) / window
			s.rates.bytes[op] += float64(ws.bytes[op]) / window
		}
	}
}

// cosbenchRates are the stream's COSBench rates, for the ops it has totals
// of, in their order.
func (s *streamRun) cosbenchRates(totals []result.OpTotal) []result.COSBenchRate {
	s.ratesMu.Lock()
	defer s.ratesMu.Unlock()
	var out []result.COSBenchRate
	for _, t := range totals {
		op, err := metrics.ParseOp(t.Op)
		if err != nil || !s.rates.seen[op] {
			continue
		}
		out = append(out, result.COSBenchRate{Op: t.Op, OpsPerSec: s.rates.ops[op], BytesPerSec: s.rates.bytes[op]})
	}
	return out
}
