package cosbenchcsv

import (
	"bufio"
	"io"
	"strconv"
)

// COSBench's response-time histogram (bench.Counter): 10 ms buckets up
// to 500 s, and one above.
const (
	bucketMS = 10
	limitMS  = 500_000
	buckets  = limitMS/bucketMS + 1
)

// writeHistogram writes COSBench's response-time histogram CSV
// (CSVLatencyExporter): a row per 10 ms bucket, and for each operation of
// each main work the count in it and the share of all its ops up to it.
func writeHistogram(w io.Writer, stages []stage) error {
	var cols []metric
	var counts [][]int64
	for _, s := range stages {
		ms, err := metricsOf(s)
		if err != nil {
			return err
		}
		for _, m := range ms {
			if m.normal() && m.latency != nil {
				cols, counts = append(cols, m), append(counts, bucketCounts(m))
			}
		}
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("ResTime")
	for _, m := range cols {
		bw.WriteString("," + m.stage.id + "-w" + strconv.Itoa(m.work) + "-" + m.stream.Name + "-" + m.name + ",(%)")
	}
	bw.WriteByte('\n')
	acc := make([]int64, len(cols))
	for i := range buckets {
		lo := int64(i * bucketMS)
		bw.WriteString(strconv.FormatInt(lo, 10) + "~")
		if i < buckets-1 {
			bw.WriteString(strconv.FormatInt(lo+bucketMS, 10))
		} else {
			bw.WriteString("+INF")
		}
		for j, m := range cols {
			c := counts[j][i]
			acc[j] += c
			share := 0.0
			if n := m.latency.TotalCount(); n > 0 {
				share = float64(acc[j]) / float64(n)
			}
			bw.WriteString("," + strconv.FormatInt(c, 10) + "," + ratio(share))
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// bucketCounts spreads the latency histogram (µs) over COSBench's buckets.
func bucketCounts(m metric) []int64 {
	out := make([]int64, buckets)
	for _, b := range m.latency.Distribution() {
		if b.Count == 0 {
			continue
		}
		i := min(b.From/1000/bucketMS, buckets-1)
		out[i] += b.Count
	}
	return out
}
