package resultpack

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// BenchmarkAddPacked is a merge's inner loop: a second's packed latency
// histogram (1,000 lognormal GET latencies, as bench/merge.sh's files
// hold) added into a merged second. gap: version 5 and 6 files' form;
// split: version 7's, into a merged second's block; split-paged: into
// pages and a worker's total at once, as a merge of several ops adds
// latencies.
func BenchmarkAddPacked(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 7))
	var gap, split [][]byte
	buckets := 0
	var w SplitWriter
	for range 64 {
		h := NewHistogram()
		for range 1000 {
			_ = h.RecordValue(int64(math.Exp(rng.NormFloat64()*0.6 + math.Log(800))))
		}
		counts := h.Export().Counts
		var g []byte
		prev := -1
		for i, c := range counts {
			if c > 0 {
				g = appendGapBucket(g, i-prev-1, c)
				prev = i
				buckets++
			}
		}
		gap = append(gap, g)
		split = append(split, w.appendDense(nil, counts))
	}
	per := float64(buckets) / 64
	for _, c := range []struct {
		name     string
		form     [][]byte
		split    bool
		pooled   bool
		withAlso bool
	}{{"gap", gap, false, false, false}, {"split", split, true, true, false}, {"split-paged", split, true, false, true}} {
		b.Run(c.name, func(b *testing.B) {
			var sum, worker Paged
			if c.pooled {
				sum.pool = &Pool{}
			}
			var also *Paged
			if c.withAlso {
				also = &worker
			}
			for n := range b.N {
				if err := sum.Add(c.form[n%len(c.form)], c.split, also); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/(float64(b.N)*per), "ns/bucket")
		})
	}
}

// appendGapBucket appends a bucket in the gap form (gapform.go).
func appendGapBucket(b []byte, gap int, c int64) []byte {
	if c == 1 {
		return binary.AppendUvarint(b, uint64(gap)<<1)
	}
	b = binary.AppendUvarint(b, uint64(gap)<<1|1)
	return binary.AppendUvarint(b, uint64(c-2))
}
