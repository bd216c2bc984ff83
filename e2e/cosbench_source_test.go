package e2e_test

import (
	"strings"
	"testing"
)

// The tests in this file check objbench against COSBench's rules as its
// source states them (github.com/intel-cloud/cosbench, dev/), each test
// naming the file it follows, on the embedded server and MinIO.

// TestCOSBenchTotalsPerWorker: totalOps and totalBytes are each worker's
// part, the total divided by the workers with integer division
// (dev/cosbench-driver/src/com/intel/cosbench/driver/agent/WorkAgent.java:
// initLimites; trySummary stops a worker at its own part, checked after
// each op). totalOps=30 with 8 workers makes 24 PUTs; totalBytes=10000
// with 3 workers of 3 KB objects makes 2 PUTs a worker (3333 bytes each:
// the second crosses it), 6 in all.
func TestCOSBenchTotalsPerWorker(t *testing.T) {
	doc := cosDoc("s3", `
    <workstage name="init"><work type="init" workers="1" config="cprefix=tot;containers=r(1,1)" /></workstage>
    <workstage name="ops"><work name="ops" workers="8" totalOps="30">
      <operation type="write" config="cprefix=tot;containers=c(1);objects=u(1,50);sizes=c(3)KB" /></work></workstage>
    <workstage name="bytes"><work name="bytes" workers="3" totalBytes="10000">
      <operation type="write" config="cprefix=tot;containers=c(1);objects=u(51,99);sizes=c(3)KB" /></work></workstage>
    <workstage name="cleanup"><work type="cleanup" workers="1" config="cprefix=tot;containers=r(1,1);objects=r(1,99)" /></workstage>`)
	for _, s := range cosStores(t) {
		t.Run(s.name, func(t *testing.T) {
			r, res := s.run(t, "totals", doc)
			if r.code != 0 || res == nil {
				t.Fatalf("exit %d:\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, "totalOps=30 with 8 workers: each worker does 30/8 = 3 ops, as in COSBench, 24 in all") {
				t.Errorf("no warning of the ops dropped:\n%s", r.stderr)
			}
			want := map[string][2]int64{"ops": {24, 24 * 3000}, "bytes": {6, 6 * 3000}}
			for _, st := range res.Steps {
				w, ok := want[st.Stage]
				if !ok {
					continue
				}
				tot := st.Streams[0].Totals[0]
				if tot.Ops != w[0] || tot.OK != w[0] || tot.Bytes != w[1] || st.Streams[0].StoppedBy != st.Stage {
					t.Errorf("stage %s: %d PUTs (%d ok, %d bytes), stopped by %s; want %d of %d bytes, stopped by %s",
						st.Stage, tot.Ops, tot.OK, tot.Bytes, st.Streams[0].StoppedBy, w[0], w[1], st.Stage)
				}
			}
		})
	}
}
