package result

import (
	"math"
	"math/rand/v2"
	"testing"
)

// BenchmarkAddPacked is a merge's inner loop: a second's packed latency
// histogram (1,000 lognormal GET latencies, as bench/merge.sh's files
// hold) added into the merged second and into its worker's total.
func BenchmarkAddPacked(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 7))
	payloads := make([][]byte, 64)
	buckets := 0
	for k := range payloads {
		h := NewHistogram()
		for range 1000 {
			_ = h.RecordValue(int64(math.Exp(rng.NormFloat64()*0.6 + math.Log(800))))
		}
		payloads[k] = []byte(PackHistogram(h)[len(packedTag):])
		for _, c := range h.Export().Counts {
			if c > 0 {
				buckets++
			}
		}
	}
	var sum, worker pagedHist
	b.ResetTimer()
	for n := range b.N {
		if err := addPackedPaged2(&sum, &worker, payloads[n%len(payloads)]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/(float64(b.N)*float64(buckets)/float64(len(payloads))), "ns/bucket")
}
