package e2e_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/oplog"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
)

// TestCOSBenchRampsLeftOut: rampup and rampdown are run (every worker
// from the start) but only the ops that started at or after the rampup's
// end and ended by the runtime's end are counted, as COSBench counts a
// sample (dev/cosbench-driver/src/com/intel/cosbench/driver/agent/
// WorkAgent.java, onSampleCreated: lbegin >= begin && lbegin < end && curr
// > begin && curr <= end): checked op by op against the op log, whose
// start and latency are the ones the count used.
func TestCOSBenchRampsLeftOut(t *testing.T) {
	doc := cosDoc("s3", `
    <workstage name="init"><work type="init" workers="1" config="cprefix=rp;containers=r(1,1)" /></workstage>
    <workstage name="prepare"><work type="prepare" workers="2" config="cprefix=rp;containers=r(1,1);objects=r(1,10);sizes=c(1)KB" /></workstage>
    <workstage name="main"><work name="main" workers="2" rampup="1" runtime="2" rampdown="1">
      <operation type="read" config="cprefix=rp;containers=c(1);objects=u(1,10)" /></work></workstage>`)
	for _, s := range cosStores(t) {
		t.Run(s.name, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "ops.jsonl")
			r, res := s.mustRun(t, "ramp", doc, "--op-log", log)
			if !strings.Contains(r.stderr, "only the ops that start after its first 1 s and end before its last 1 s count in its statistics") {
				t.Errorf("the warning:\n%s", r.stderr)
			}
			for _, st := range res.Steps {
				if st.Kind != result.KindMain {
					continue
				}
				sr := st.Streams[0]
				var inSeconds int64
				for _, sec := range sr.Seconds {
					if sec.T < 1 || sec.T > 2 {
						t.Errorf("second %d is in the result", sec.T)
					}
					for _, o := range sec.Ops {
						inSeconds += o.Ops
					}
				}
				rule, byEnd, logged := rampCounts(t, log, st.Start)
				ops, ok, _ := mainOps(res, "GET")
				t.Logf("%d GETs counted; by COSBench's rule %d, by the second they ended in %d, of %d", ops, rule, byEnd, logged)
				if ops != rule || ops != inSeconds || ok != ops || ops == 0 || logged < ops*5/4 || sr.Window.Start < 1 || sr.Window.End > 3 {
					t.Errorf("%d GETs counted (%d in the seconds kept), %d by COSBench's rule, %d sent; window %+v", ops, inSeconds, rule, logged, sr.Window)
				}
			}
		})
	}
}

// rampCounts reads the main step's GETs from an op log and counts those
// COSBench would count for a rampup of 1 s and a runtime of 2 s, and
// those that ended in seconds 1 and 2 of the step.
func rampCounts(t *testing.T, log string, step time.Time) (rule, byEnd, all int64) {
	t.Helper()
	rd, err := oplog.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var rec oplog.Record
	for {
		if err := rd.Next(&rec); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if rec.Step != "main" || rec.Op != metrics.OpGet {
			continue
		}
		all++
		start := rec.Start.Sub(step)
		end := start + rec.Latency
		if start >= time.Second && start < 3*time.Second && end > time.Second && end <= 3*time.Second {
			rule++
		}
		if end >= time.Second && end < 3*time.Second {
			byEnd++
		}
	}
	return rule, byEnd, all
}

// TestCOSBenchAFRPerWorkAtStageEnd: afr is judged per work once the stage
// is over; the failed work is named, the stage runs to its end, the later
// stages run, and the run exits 1.
func TestCOSBenchAFRPerWorkAtStageEnd(t *testing.T) {
	doc := cosDoc("s3", `
    <workstage name="init"><work type="init" workers="1" config="cprefix=afr;containers=r(1,2)" /></workstage>
    <workstage name="prepare"><work type="prepare" workers="2" config="cprefix=afr;containers=r(1,2);objects=r(1,5);sizes=c(1)KB" /></workstage>
    <workstage name="reads">
      <work name="good" workers="1" totalOps="200"><operation type="read" config="cprefix=afr;containers=c(1);objects=u(1,5)" /></work>
      <work name="bad" workers="1" totalOps="200"><operation type="read" config="cprefix=afr;containers=c(2);objects=u(1,10)" /></work>
    </workstage>
    <workstage name="writes"><work name="w" workers="1" totalOps="30"><operation type="write" config="cprefix=afr;containers=c(1);objects=u(6,8);sizes=c(2)KB" /></work></workstage>`)
	for _, s := range cosStores(t) {
		t.Run(s.name, func(t *testing.T) {
			r, res := s.run(t, "afr", doc)
			if r.code != 1 || res == nil {
				t.Fatalf("exit %d, want 1:\n%s", r.code, r.stderr)
			}
			failed := res.FailedWorks()
			if len(failed) != 1 || !strings.HasPrefix(failed[0], `reads: work "bad": `) || !strings.Contains(failed[0], "more than its afr of 20%") {
				t.Errorf("failed works %q", failed)
			}
			if !strings.Contains(r.stderr, `1 work(s) failed the acceptable failure ratio (afr); the later stages ran: reads: work "bad"`) ||
				!strings.Contains(r.stdout, `reads: FAILED (afr): work "bad"`) {
				t.Errorf("stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			}
			for _, st := range res.Steps {
				for _, sr := range st.Streams {
					var ops int64
					for _, tot := range sr.Totals {
						ops += tot.Ops
					}
					if st.Kind == result.KindMain && ops != map[string]int64{"good": 200, "bad": 200, "w": 30}[sr.Name] {
						t.Errorf("%s/%s ran %d ops, stopped by %s", st.Stage, sr.Name, ops, sr.StoppedBy)
					}
				}
			}
			_, okGets, _ := mainOps(res, "GET")
			if okGets < 200+50 || okGets > 200+150 {
				t.Errorf("%d GETs ok: want the 200 of good and about half of bad's", okGets)
			}
			got := s.objects(t, "afr1")
			if len(got) != 8 || got[res.Target.Namespace+"myobjects6"] != 2000 {
				t.Errorf("the later stage's writes are not in the store: %v", got)
			}
		})
	}
}

// TestCOSBenchSizesAndData: sizes are whole numbers of their unit and the
// data is COSBench's (a 4 KiB piece of letters repeated), unless
// --incompressible; --dry-run says so.
func TestCOSBenchSizesAndData(t *testing.T) {
	doc := cosDoc("s3", `
    <workstage name="init"><work type="init" workers="1" config="cprefix=sz;containers=r(1,1)" /></workstage>
    <workstage name="prepare"><work type="prepare" workers="2" config="cprefix=sz;containers=r(1,1);objects=r(1,40);sizes=u(1,4)KB" /></workstage>
    <workstage name="main"><work name="main" workers="2" totalOps="100">
      <operation type="read" config="cprefix=sz;containers=c(1);objects=u(1,40);hashCheck=true" /></work></workstage>`)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "sz.xml"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	dry := objbench(t, dir, nil, "run", "--dry-run", "sz.xml").mustSucceed(t)
	for _, want := range []string{"write 40 objects of u(1,4)KB (whole KB)", "COSBench's data: each object repeats one 4 KiB piece of random letters"} {
		if !strings.Contains(dry.stdout, want) {
			t.Errorf("--dry-run lacks %q:\n%s", want, dry.stdout)
		}
	}
	for _, s := range cosStores(t) {
		for _, incompressible := range []bool{false, true} {
			t.Run(s.name+map[bool]string{false: "", true: "/incompressible"}[incompressible], func(t *testing.T) {
				var args []string
				if incompressible {
					args = []string{"--incompressible"}
				}
				_, res := s.mustRun(t, "sz", doc, args...)
				if ops, ok, _ := mainOps(res, "GET"); ops != 100 || ok != 100 {
					t.Errorf("%d verified GETs, %d ok", ops, ok)
				}
				got := map[string]int64{} // this run's objects (the bucket stays between runs)
				for key, size := range s.objects(t, "sz1") {
					if strings.HasPrefix(key, res.Target.Namespace) {
						got[key] = size
					}
				}
				sizes := map[int64]bool{}
				for key, size := range got {
					if size%1000 != 0 || size < 1000 || size > 4000 {
						t.Errorf("%s has %d bytes: not a whole KB from 1 to 4", key, size)
					}
					sizes[size] = true
				}
				if len(got) != 40 || len(sizes) < 3 {
					t.Errorf("%d objects of sizes %v", len(got), sizes)
				}
				var body bytes.Buffer
				key := res.Target.Namespace + "myobjects7"
				if _, err := s.bucket(t, "sz1").Get(context.Background(), key, storage.GetOptions{}, &body); err != nil {
					t.Fatal(err)
				}
				b := body.Bytes()
				letters := len(b) > 0
				for i, c := range b {
					if c < 'a' || c > 'z' || (i >= 4096 && c != b[i-4096]) {
						letters = false
						break
					}
				}
				if letters == incompressible {
					t.Errorf("object of %d bytes: COSBench's letters %v, want %v (starts %q)", len(b), letters, !incompressible, b[:min(len(b), 16)])
				}
			})
		}
	}
}
