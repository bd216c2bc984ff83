package e2e_test

import (
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/oplog"
)

// TestCOSBenchCSVThroughput: the COSBench CSV's Throughput and Bandwidth
// are COSBench's: each worker's successful ops (bytes) over its own window,
// from the start of its first op to the end of its last, summed over the
// workers (dev/cosbench-driver/src/com/intel/cosbench/driver/agent/
// WorkAgent.java, doSummary; dev/cosbench-core/src/com/intel/cosbench/bench/
// Metrics.java, convert; Aggregator.java, getThroughput), checked against
// the op log worker by worker; where they differ from objbench's table by
// more than a tenth, the run says both and why.
func TestCOSBenchCSVThroughput(t *testing.T) {
	doc := cosDoc("s3", `
    <workstage name="init"><work type="init" workers="1" config="cprefix=tp;containers=r(1,1)" /></workstage>
    <workstage name="prepare"><work type="prepare" workers="3" config="cprefix=tp;containers=r(1,1);objects=r(1,30);sizes=c(4)KB" /></workstage>
    <workstage name="main"><work name="m" workers="3" totalOps="300">
      <operation type="read" config="cprefix=tp;containers=c(1);objects=u(1,30)" /></work></workstage>
    <workstage name="cleanup"><work type="cleanup" workers="2" config="cprefix=tp;containers=r(1,1);objects=r(1,30)" /></workstage>`)
	for _, s := range cosStores(t) {
		t.Run(s.name, func(t *testing.T) {
			dir := t.TempDir()
			log := filepath.Join(dir, "ops.jsonl")
			r, res := s.mustRun(t, "tp", doc, "--cosbench-csv", dir, "--op-log", log)
			want := cosbenchRates(t, log)
			rows := readCSV(t, filepath.Join(dir, "w1-t", "w1-t.csv"))
			checked := 0
			for _, row := range rows[1:] {
				step, ok := map[string]string{"s2-prepare": "prepare", "s3-main": "main", "s4-cleanup": "cleanup"}[row[0]]
				if !ok {
					continue
				}
				w := want[step]
				got, _ := strconv.ParseFloat(row[13], 64)
				bw, _ := strconv.ParseFloat(row[14], 64)
				// 0.005: the CSV's two decimals
				if got < w.ops[0]-0.005 || got > w.ops[1]+0.005 || bw < w.bytes[0]-0.005 || bw > w.bytes[1]+0.005 {
					t.Errorf("%s: Throughput %s, Bandwidth %s; COSBench's formula on the op log gives %.2f-%.2f and %.2f-%.2f",
						row[0], row[13], row[14], w.ops[0], w.ops[1], w.bytes[0], w.bytes[1])
				}
				own := 0.0
				for _, st := range res.Steps {
					if st.Stage == step {
						own = st.Streams[0].Totals[0].OpsPerSec
					}
				}
				said := strings.Contains(r.stderr, "COSBench CSV: "+row[0]+" "+row[1]+" (work 1): Throughput "+row[13]+" op/s in the COSBench CSV")
				if differ := math.Abs(got-own) > 0.1*math.Max(got, own); differ != said {
					t.Errorf("%s: %v op/s against objbench's %v; explained %v", row[0], got, own, said)
				}
				checked++
			}
			if checked != 3 {
				t.Errorf("%d rows checked, want prepare, main and cleanup:\n%v", checked, rows)
			}
		})
	}
}

// rateRange is a rate between two bounds.
type rateRange struct{ ops, bytes [2]float64 }

// cosbenchRates computes COSBench's throughput and bandwidth of each step
// from an op log: per worker, its successful ops and bytes over the span
// from its first op's start to its last op's end; summed. The op log
// keeps latencies in whole microseconds, so a worker's last end is known
// to within one: each rate comes as the range that leaves.
func cosbenchRates(t *testing.T, log string) map[string]rateRange {
	t.Helper()
	rd, err := oplog.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	type span struct {
		first, last time.Time
		ok, bytes   float64
	}
	spans := map[string]map[int]*span{}
	var rec oplog.Record
	for {
		if err := rd.Next(&rec); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if spans[rec.Step] == nil {
			spans[rec.Step] = map[int]*span{}
		}
		s := spans[rec.Step][rec.Worker]
		if s == nil {
			s = &span{first: rec.Start}
			spans[rec.Step][rec.Worker] = s
		}
		if end := rec.Start.Add(rec.Latency); end.After(s.last) {
			s.last = end
		}
		if rec.Class == "" {
			s.ok++
			if rec.Op == metrics.OpGet || rec.Op == metrics.OpPut {
				s.bytes += float64(rec.Size)
			}
		}
	}
	out := map[string]rateRange{}
	for step, ws := range spans {
		var r rateRange
		for _, s := range ws {
			w := s.last.Sub(s.first).Seconds()
			r.ops[0] += s.ok / (w + 1e-6)
			r.ops[1] += s.ok / w
			r.bytes[0] += s.bytes / (w + 1e-6)
			r.bytes[1] += s.bytes / w
		}
		out[step] = r
	}
	return out
}
