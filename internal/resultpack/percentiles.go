package resultpack

// Percentiles of a Paged in one pass over its pages, as hdrhistogram-go
// computes them of the dense histogram (ValueAtQuantile, Mean, Min, Max):
// reading a result summarizes every op of every step, and building each
// one's 184 KiB dense histogram, walking it nine times and compressing it
// took a millisecond a step (a 20,000-step file: 30 s). result's
// TestPagedPercentilesAreHdrs checks them against the library's.

// Percentiles are the result's Percentiles (microseconds), which result
// converts from these: the two types are one struct.
type Percentiles struct {
	Count int64
	Avg   float64
	Min   int64
	P25   int64
	P50   int64
	P75   int64
	P90   int64
	P99   int64
	P999  int64
	Max   int64
}

// bucketRange is the size of the range of values bucket index i stands
// for (1 µs below 2,048 µs, doubling with each power of two).
func bucketRange(i int) int64 {
	if b := i>>subBucketHalfMag - 1; b > 0 {
		return 1 << b
	}
	return 1
}

// rankOf is hdrhistogram-go's rank of percentile p among total values
// (percentileRank): at least 1, at most total.
func rankOf(p float64, total int64) int64 {
	rank := (p/100)*float64(total) + 0.5
	if !(rank >= 1) {
		return 1
	}
	if rank >= float64(total) {
		return total
	}
	return int64(rank)
}

// Percentiles summarizes h (nil or empty: zero), reading its pages once.
func (h *Paged) Percentiles() Percentiles {
	if h == nil || h.total == 0 {
		return Percentiles{}
	}
	total := int64(h.total)
	out := Percentiles{Count: total}
	quantiles := [...]struct {
		p   float64
		dst *int64
	}{{25, &out.P25}, {50, &out.P50}, {75, &out.P75}, {90, &out.P90}, {99, &out.P99}, {99.9, &out.P999}}
	var ranks [len(quantiles)]int64
	for k, q := range quantiles {
		ranks[k] = rankOf(q.p, total)
	}
	next, seen, first := 0, int64(0), true
	ftotal := float64(total)
	for n, page := range h.pages {
		if page == nil {
			continue
		}
		for j, c := range page {
			if c <= 0 {
				continue
			}
			i := n<<pageShift + j
			lo, size := bucketValue(int32(i)), bucketRange(i)
			if first {
				out.Min, first = lo, false
			}
			out.Max = lo + size - 1
			out.Avg += float64(c) * float64(lo+size>>1) / ftotal
			seen += c
			for next < len(ranks) && seen >= ranks[next] {
				*quantiles[next].dst = lo + size - 1
				next++
			}
		}
	}
	return out
}
