package result

import (
	"math"
	"math/rand/v2"
	"os"
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
		if err := addPackedPaged2(&sum, benchAlso(&worker), payloads[n%len(payloads)]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/(float64(b.N)*float64(buckets)/float64(len(payloads))), "ns/bucket")
}

func addPackedPagedOld(h, also *pagedHist, p []byte) error {
	at, end := -1, 0
	var page, page2 *[pageBuckets]int64
	for i := 0; i < len(p); {
		u, c := uint64(p[i]), int64(1)
		if u < 0x80 {
			i++
		} else {
			var ok bool
			if u, i, ok = uvarint(p, i); !ok {
				return errPacked
			}
		}
		if u&1 != 0 {
			if i < len(p) && p[i] < 0x80 {
				c, i = int64(p[i])+2, i+1
			} else {
				v, n, ok := uvarint(p, i)
				if !ok || v > math.MaxInt64-2 {
					return errPacked
				}
				c, i = int64(v)+2, n
			}
		}
		if u>>1 >= histCounts {
			return errPacked
		}
		idx := at + int(u>>1) + 1
		if idx >= end {
			if idx >= histCounts {
				return errPacked
			}
			page = h.page(idx >> pageShift)
			if also != nil {
				page2 = also.page(idx >> pageShift)
			}
			end = (idx>>pageShift + 1) << pageShift
		}
		v := page[idx&(pageBuckets-1)] + c
		if v < 0 {
			return errOverflow
		}
		page[idx&(pageBuckets-1)], at = v, idx
		if page2 != nil {
			if v = page2[idx&(pageBuckets-1)] + c; v < 0 {
				return errOverflow
			}
			page2[idx&(pageBuckets-1)] = v
		}
	}
	return nil
}

func BenchmarkAddPackedOld(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 7))
	payloads := make([][]byte, 64)
	for k := range payloads {
		h := NewHistogram()
		for range 1000 {
			_ = h.RecordValue(int64(math.Exp(rng.NormFloat64()*0.6 + math.Log(800))))
		}
		payloads[k] = []byte(PackHistogram(h)[len(packedTag):])
	}
	var sum, worker pagedHist
	b.ResetTimer()
	for n := range b.N {
		if err := addPackedPagedOld(&sum, &worker, payloads[n%len(payloads)]); err != nil {
			b.Fatal(err)
		}
	}
}

var noAlso = os.Getenv("NOALSO") != ""

func benchAlso(h *pagedHist) *pagedHist {
	if noAlso {
		return nil
	}
	return h
}
