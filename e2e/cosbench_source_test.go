package e2e_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
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
			r, res := s.mustRun(t, "totals", doc)
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

// cosbenchTrailer is COSBench's hashCheck trailer of data, written from
// its source: "!!!!", the MD5 as %032x, "!!!!"
// (dev/cosbench-driver/src/com/intel/cosbench/driver/util/HashUtil.java).
func cosbenchTrailer(data []byte) []byte {
	return fmt.Appendf(nil, "!!!!%032x!!!!", md5.Sum(data))
}

// lettersOnly reports whether b is all lower-case letters, as
// RandomInputStream.java fills its buffer.
func lettersOnly(b []byte) bool {
	for _, c := range b {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return len(b) > 0
}

// TestCOSBenchHashCheckLayout: with hashCheck=true every object written of
// more than 40 bytes is letters then COSBench's trailer over them, and an
// object of 40 bytes or less is letters alone
// (dev/cosbench-driver/src/com/intel/cosbench/driver/generator/
// RandomInputStream.java; util/HashUtil.java); reads with hashCheck check
// it, all ok. The store is checked object by object against the list
// COSBench's rules make: names myobjects<N> (util/Defaults.java), whole KB
// sizes. Lower-case hashcheck=true is warned about and ignored, as
// COSBench ignores it (its config keys are case-sensitive:
// config/common/KVConfigParser.java into a commons-configuration map;
// operator/Preparer.java reads "hashCheck").
func TestCOSBenchHashCheckLayout(t *testing.T) {
	doc := cosDoc("s3", `
    <workstage name="init"><work type="init" workers="1" config="cprefix=hc;containers=r(1,2)" /></workstage>
    <workstage name="prepare">
      <work type="prepare" workers="2" config="cprefix=hc;containers=r(1,1);objects=r(1,6);sizes=u(1,3)KB;hashCheck=true" />
      <work type="prepare" workers="1" config="cprefix=hc;containers=r(1,1);objects=r(7,8);sizes=c(40)B;hashCheck=true" />
      <work type="prepare" workers="1" config="cprefix=hc;containers=r(2,2);objects=r(1,3);sizes=c(2)KB;hashcheck=true" />
    </workstage>
    <workstage name="main"><work name="main" workers="2" totalOps="80">
      <operation type="read" ratio="80" config="cprefix=hc;containers=c(1);objects=u(1,8);hashCheck=true" />
      <operation type="write" ratio="20" config="cprefix=hc;containers=c(1);objects=u(9,10);sizes=c(2)KB;hashCheck=true" /></work></workstage>`)
	for _, s := range cosStores(t) {
		t.Run(s.name, func(t *testing.T) {
			r, res := s.mustRun(t, "hash", doc)
			if !strings.Contains(r.stderr, "config key hashcheck is not COSBench's hashCheck: COSBench's keys are case-sensitive, so it ignores hashcheck") {
				t.Errorf("the lower-case key was not warned about:\n%s", r.stderr)
			}
			gets, okGets, _ := mainOps(res, "GET")
			if puts, okPuts, _ := mainOps(res, "PUT"); gets+puts != 80 || okGets != gets || okPuts != puts || gets == 0 {
				t.Errorf("%d GETs (%d ok), %d PUTs (%d ok); want 80 ops, all ok", gets, okGets, puts, okPuts)
			}
			ns := res.Target.Namespace
			check := func(bucket string, n int, sizes []int64, trailer bool) {
				key := ns + "myobjects" + strconv.Itoa(n)
				var body bytes.Buffer
				if _, err := s.bucket(t, bucket).Get(context.Background(), key, storage.GetOptions{}, &body); err != nil {
					t.Errorf("%s/%s: %v", bucket, key, err)
					return
				}
				b := body.Bytes()
				size := int64(len(b))
				if !slices.Contains(sizes, size) {
					t.Errorf("%s/%s has %d bytes, want one of %v", bucket, key, size, sizes)
					return
				}
				switch {
				case trailer && (!lettersOnly(b[:size-40]) || !bytes.Equal(b[size-40:], cosbenchTrailer(b[:size-40]))):
					t.Errorf("%s/%s: not letters and COSBench's trailer: ends %q", bucket, key, b[size-40:])
				case !trailer && !lettersOnly(b):
					t.Errorf("%s/%s: not letters alone: ends %q", bucket, key, b[max(0, size-40):])
				}
			}
			for n := 1; n <= 6; n++ {
				check("hc1", n, []int64{1000, 2000, 3000}, true)
			}
			for n := 7; n <= 8; n++ {
				check("hc1", n, []int64{40}, false)
			}
			written := 0
			for n := 9; n <= 10; n++ {
				if _, ok := s.objects(t, "hc1")[ns+"myobjects"+strconv.Itoa(n)]; ok {
					check("hc1", n, []int64{2000}, true)
					written++
				}
			}
			for n := 1; n <= 3; n++ {
				check("hc2", n, []int64{2000}, false) // hashcheck=true: ignored
			}
			if got := len(s.objects(t, "hc1")); got != 8+written || len(s.objects(t, "hc2")) != 3 || written == 0 {
				t.Errorf("hc1 holds %d objects (%d of the writes'), hc2 %d", got, written, len(s.objects(t, "hc2")))
			}
		})
	}
}

// TestCOSBenchHashCheckReadsOthersObjects: objects another client wrote
// under COSBench's names, with COSBench's trailer over letters objbench
// never made, read with hashCheck: a good trailer reads ok, a trailer that
// does not match fails as a checksum error, an object without a trailer
// reads ok and is counted in a note, as COSBench's Reader does
// (dev/cosbench-driver/src/com/intel/cosbench/driver/operator/Reader.java,
// validateChecksum: "Inconsistent Hashes" fails the sample, "No checksum
// embedded" is a warning).
func TestCOSBenchHashCheckReadsOthersObjects(t *testing.T) {
	doc := cosDoc("s3", `
    <workstage name="main"><work name="main" workers="2" totalOps="200" afr="1000000">
      <operation type="read" config="cprefix=hco;containers=c(1);objects=u(1,5);hashCheck=true" /></work></workstage>`)
	letters := func(n int, seed byte) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = 'a' + byte((i*7+int(seed)*13)%26)
		}
		return b
	}
	objs := map[int][]byte{}
	for n := 1; n <= 3; n++ {
		d := letters(1500*n, byte(n))
		objs[n] = append(d, cosbenchTrailer(d)...)
	}
	d := letters(2000, 4)
	objs[4] = append(append([]byte{}, d...), cosbenchTrailer(letters(2000, 5))...) // a trailer of other data
	objs[5] = letters(2040, 6)                                                     // no trailer
	for _, s := range cosStores(t) {
		t.Run(s.name, func(t *testing.T) {
			b := s.bucket(t, "hco1")
			if err := b.CreateBucket(context.Background()); err != nil {
				t.Fatal(err)
			}
			for n, body := range objs {
				key := "objbench/data/others/myobjects" + strconv.Itoa(n)
				if _, err := b.Put(context.Background(), key, bytes.NewReader(body), int64(len(body)), storage.PutOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			_, res := s.mustRun(t, "others", doc, "--dataset", "others")
			var gets result.OpTotal
			var notes string
			for _, st := range res.Steps {
				if st.Kind == result.KindMain {
					gets, notes = st.Streams[0].Totals[0], strings.Join(st.Notes, "\n")
				}
			}
			// one object in five fails, one in five has no trailer
			if bad := gets.Errors["checksum"]; gets.Ops != 200 || bad < 15 || bad > 70 || gets.OK+bad != 200 {
				t.Errorf("%d GETs, %d ok, errors %v; want 200, about 40 checksum errors and no other", gets.Ops, gets.OK, gets.Errors)
			}
			if !strings.Contains(notes, "objects read with hashCheck carried no COSBench checksum") {
				t.Errorf("no note of the objects without a trailer:\n%s", notes)
			}
		})
	}
}

// TestCOSBenchDelayAndStageIDs: a workstage named delay sleeps its
// closuredelay and runs nothing else, a delay work in a workstage of
// another name is run (its closuredelay waited) with a warning that
// COSBench fails there (dev/cosbench-controller/src/com/intel/cosbench/
// controller/service/WorkloadProcessor.java, runStage; dev/cosbench-driver/
// src/com/intel/cosbench/driver/operator/Operators.java has no delay), and
// COSBench's CSV numbers the stages as COSBench does, one per workstage
// ("s" + index + "-" + name), however many steps objbench ran for one
// (createContainer's init, a closuredelay's wait).
func TestCOSBenchDelayAndStageIDs(t *testing.T) {
	doc := cosDoc("s3", `
    <workstage name="prepare"><work type="prepare" workers="1" config="cprefix=dl;containers=r(1,1);objects=r(1,4);sizes=c(1)KB;createContainer=true" /></workstage>
    <workstage name="main" closuredelay="1"><work name="m" workers="1" totalOps="8">
      <operation type="read" config="cprefix=dl;containers=c(1);objects=u(1,4)" /></work></workstage>
    <workstage name="pause" closuredelay="1"><work type="delay" workers="1" /></workstage>
    <workstage name="delay" closuredelay="1"><work name="skipped" workers="1" totalOps="8">
      <operation type="write" config="cprefix=dl;containers=c(1);objects=u(5,8);sizes=c(1)KB" /></work></workstage>
    <workstage name="cleanup"><work type="cleanup" workers="1" config="cprefix=dl;containers=r(1,1);objects=r(1,8);deleteContainer=true" /></workstage>`)
	wantIDs := []string{"s1-prepare", "s2-main", "pause", "delay", "s5-cleanup"}
	for _, s := range cosStores(t) {
		t.Run(s.name, func(t *testing.T) {
			dir := t.TempDir()
			r, res := s.mustRun(t, "ids", doc, "--cosbench-csv", dir)
			if !strings.Contains(r.stderr, `delay work in workstage "pause": COSBench fails this stage`) ||
				!strings.Contains(r.stderr, `workstage "delay" runs only its closuredelay of 1s, as in COSBench: its main works are not run`) {
				t.Errorf("warnings:\n%s", r.stderr)
			}
			waited := 0
			for _, st := range res.Steps {
				if st.Kind == result.KindDelay && st.Elapsed >= time.Second {
					waited++
				}
				if st.Kind == result.KindMain && st.Stage == "delay" {
					t.Errorf("the works of the workstage named delay ran")
				}
			}
			if waited != 3 { // main's closuredelay, pause, delay
				t.Errorf("%d delays of 1 s waited, want 3", waited)
			}
			rows := readCSV(t, filepath.Join(dir, "w1-t", "w1-t.csv"))
			var ids []string
			for _, row := range rows[1:] {
				ids = append(ids, row[0])
			}
			if !slices.Equal(ids, wantIDs) {
				t.Errorf("the workload CSV's stages %q, want %q", ids, wantIDs)
			}
			for _, f := range []string{"s1-prepare.csv", "s2-main.csv", "s5-cleanup.csv"} {
				if rows := readCSV(t, filepath.Join(dir, "w1-t", f)); len(rows) < 3 {
					t.Errorf("%s has %d rows", f, len(rows))
				}
			}
			if got := s.objects(t, "dl1"); got != nil {
				t.Errorf("the bucket createContainer made was not removed: %v", got)
			}
		})
	}
}

// TestCOSBenchScaleAndCapRuntime: --scale shrinks COSBench's containers
// with its objects (20 containers at 0.1 are 2), and --cap-runtime makes a
// trial run of a long work: ten minutes run 2 s, said before it starts.
func TestCOSBenchScaleAndCapRuntime(t *testing.T) {
	doc := cosDoc("s3", `
    <workstage name="init"><work type="init" workers="1" config="cprefix=scl;containers=r(1,20)" /></workstage>
    <workstage name="prepare"><work type="prepare" workers="2" config="cprefix=scl;containers=r(1,20);objects=r(1,10);sizes=c(1)KB" /></workstage>
    <workstage name="main"><work name="main" workers="2" rampup="60" runtime="600">
      <operation type="read" config="cprefix=scl;containers=u(1,20);objects=u(1,10)" /></work></workstage>`)
	for _, s := range cosStores(t) {
		t.Run(s.name, func(t *testing.T) {
			r, res := s.mustRun(t, "scale", doc, "--scale", "0.1", "--cap-runtime", "2s")
			if !strings.Contains(r.stderr, "a trial run (--cap-runtime 2s): every main stream runs at most 2s") {
				t.Errorf("no warning of the trial run:\n%s", r.stderr)
			}
			for _, st := range res.Steps {
				if st.Kind == result.KindMain && (st.Elapsed < 2*time.Second || st.Elapsed > 10*time.Second) {
					t.Errorf("main ran %v, want about 2s", st.Elapsed)
				}
			}
			ns := res.Target.Namespace
			for _, b := range []string{"scl1", "scl2"} {
				wantObjects(t, s.objects(t, b), ns, "myobjects", []int{1}, 1000)
			}
			if got := s.objects(t, "scl3"); got != nil {
				t.Errorf("a third container was made: %v", got)
			}
			if ops, ok, _ := mainOps(res, "GET"); ops == 0 || ok != ops {
				t.Errorf("%d GETs, %d ok", ops, ok)
			}
		})
	}
}
