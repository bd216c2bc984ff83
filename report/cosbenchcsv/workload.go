package cosbenchcsv

import (
	"encoding/csv"
	"io"
	"strconv"
)

var workloadHeader = []string{"Stage", "Op-Name", "Op-Type", "Op-Count", "Byte-Count", "Avg-ResTime", "Avg-ProcTime",
	"60%-ResTime", "80%-ResTime", "90%-ResTime", "95%-ResTime", "99%-ResTime", "100%-ResTime",
	"Throughput", "Bandwidth", "Succ-Ratio", "Status", "Detailed Status"}

// writeWorkload writes COSBench's workload CSV (CSVWorkloadExporter): a
// row per stage and operation; a stage without operations gets a row of
// N/A under its name.
func writeWorkload(w io.Writer, stages []stage) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(workloadHeader); err != nil {
		return err
	}
	for _, s := range stages {
		ms, err := metricsOf(s)
		if err != nil {
			return err
		}
		if len(ms) == 0 {
			rec := []string{s.name}
			for range 15 {
				rec = append(rec, "N/A")
			}
			if err := cw.Write(append(append(rec, s.state()), s.history()...)); err != nil {
				return err
			}
			continue
		}
		for _, m := range ms {
			rec := []string{s.id, m.name, m.typ, strconv.FormatInt(m.t.OK, 10), strconv.FormatInt(m.t.Bytes, 10),
				orNA(m.avgRes(), num), orNA(m.avgProc(), num)}
			rec = append(rec, percentilesMS(m)...)
			ops, bytes := m.rates()
			rec = append(rec, num(ops), num(bytes), orNA(m.succRatio(), ratio), s.state())
			if err := cw.Write(append(rec, s.history()...)); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// percentilesMS are the 60th to 100th percentiles of the response time in
// ms. COSBench gives the upper bound of the 10 ms bucket holding each;
// objbench's histograms give the value itself.
func percentilesMS(m metric) []string {
	out := make([]string, 0, 6)
	for _, q := range []float64{60, 80, 90, 95, 99, 100} {
		if m.latency == nil || m.latency.TotalCount() == 0 {
			out = append(out, "N/A")
			continue
		}
		v := m.latency.ValueAtQuantile(q)
		if q == 100 {
			v = m.latency.Max()
		}
		out = append(out, num(float64(v)/1000))
	}
	return out
}
