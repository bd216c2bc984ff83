package e2e_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/s3server"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// cosStore is an S3 server a COSBench workload runs against in a test:
// the embedded server, or MinIO.
type cosStore struct {
	name, endpoint, access, secret string
}

// cosStores starts the embedded server and, where it is installed, MinIO
// (each for the whole test).
func cosStores(t *testing.T) []cosStore {
	t.Helper()
	srv, err := s3server.Start(context.Background(), s3server.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(context.Background()) })
	out := []cosStore{{"embedded", srv.Endpoint(), srv.AccessKey(), srv.SecretKey()}}
	if _, err := testenv.MinIOBinary(); err == nil || os.Getenv("OBJBENCH_REQUIRE_MINIO") != "" {
		m := testenv.StartMinIO(t)
		out = append(out, cosStore{"minio", m.Endpoint, m.AccessKey, m.SecretKey})
	}
	return out
}

func (s cosStore) env() []string {
	return []string{"AWS_ACCESS_KEY_ID=" + s.access, "AWS_SECRET_ACCESS_KEY=" + s.secret, "AWS_REGION=us-east-1"}
}

func (s cosStore) bucket(t *testing.T, name string) *s3.Store {
	t.Helper()
	st, err := s3.New(context.Background(), s3.Config{Endpoint: s.endpoint, Bucket: name, PathStyle: true,
		AccessKey: s.access, SecretKey: s.secret, Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// objects lists a bucket: key -> size; nil when the bucket does not exist.
func (s cosStore) objects(t *testing.T, bucket string) map[string]int64 {
	t.Helper()
	st := s.bucket(t, bucket)
	if ok, err := st.BucketExists(context.Background()); err != nil || !ok {
		return nil
	}
	out := map[string]int64{}
	err := st.List(context.Background(), "", func(o storage.ObjectInfo) error { out[o.Key] = o.Size; return nil })
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// runCOS writes doc as name.xml and runs objbench on it against s with
// args; it returns the run and its result (nil when none was written).
func (s cosStore) run(t *testing.T, name, doc string, args ...string) (run, *result.Run) {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, name+".xml")
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r.json")
	args = append(append([]string{"run", "--out", out, "--endpoint-url", s.endpoint}, args...), file)
	r := objbench(t, dir, s.env(), args...)
	if _, err := os.Stat(out); err != nil {
		return r, nil
	}
	return r, readResult(t, out)
}

// cosDoc wraps workstages in a workload of the given storage type.
func cosDoc(storageType, stages string) string {
	return `<?xml version="1.0" encoding="UTF-8" ?>
<workload name="t" description="test">
  <storage type="` + storageType + `" config="" />
  <workflow>
` + stages + `
  </workflow>
</workload>`
}

// wantObjects checks that bucket holds exactly n objects under ns, named
// prefix<number> for the numbers in want, each of size.
func wantObjects(t *testing.T, got map[string]int64, ns, prefix string, want []int, size int64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("bucket holds %d objects, want %d: %v", len(got), len(want), got)
	}
	for _, n := range want {
		key := ns + prefix + strconv.Itoa(n)
		if sz, ok := got[key]; !ok || (size >= 0 && sz != size) {
			t.Errorf("object %s: present %v, size %d; want size %d", key, ok, sz, size)
		}
	}
}

// TestCOSBenchDefaultsRun: a workload relying on COSBench's defaults
// (container names with underscores, operations without ratio) runs, and
// the store holds what it should under the mapped bucket names.
func TestCOSBenchDefaultsRun(t *testing.T) {
	doc := cosDoc("s3", `
    <workstage name="init"><work type="init" workers="1" config="containers=r(1,2)" /></workstage>
    <workstage name="prepare"><work type="prepare" workers="2" config="containers=r(1,2);objects=r(1,10);sizes=c(1)KB" /></workstage>
    <workstage name="main"><work name="main" workers="2" totalOps="40">
      <operation type="read" config="containers=u(1,2);objects=u(1,10)" /></work></workstage>`)
	for _, s := range cosStores(t) {
		t.Run(s.name, func(t *testing.T) {
			r, res := s.run(t, "defaults", doc)
			if r.code != 0 || res == nil {
				t.Fatalf("exit %d:\n%s", r.code, r.stderr)
			}
			if n := strings.Count(r.stderr, "container names mycontainers_<N> are not valid S3 bucket names"); n != 1 {
				t.Errorf("the mapping warned %d times:\n%s", n, r.stderr)
			}
			if ops, ok, bytes := mainOps(res, "GET"); ops != 40 || ok != 40 || bytes != 40*1000 {
				t.Errorf("main: %d GETs, %d ok, %d bytes; want 40 of 1000 bytes each", ops, ok, bytes)
			}
			for _, b := range []string{"mycontainers-1", "mycontainers-2"} {
				wantObjects(t, s.objects(t, b), res.Target.Namespace, "myobjects_", []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 1000)
			}
			if got := s.objects(t, "mycontainers_1"); got != nil {
				t.Errorf("a bucket with the invalid name exists: %v", got)
			}
		})
	}
}

// TestCOSBenchOtherStorageTypeRuns: a swift workload runs against the S3
// endpoint the flags name (one warning); without a target it is refused
// once; a mock workload without a target runs on the embedded server.
func TestCOSBenchOtherStorageTypeRuns(t *testing.T) {
	stages := `
    <workstage name="init"><work type="init" workers="1" config="cprefix=sw;containers=r(1,1)" /></workstage>
    <workstage name="prepare"><work type="prepare" workers="2" config="cprefix=sw;containers=r(1,1);objects=r(1,4);sizes=c(2)KB" /></workstage>`
	doc := cosDoc("swift", stages)
	for _, s := range cosStores(t) {
		t.Run(s.name, func(t *testing.T) {
			r, res := s.run(t, "swift", doc)
			if r.code != 0 || res == nil {
				t.Fatalf("exit %d:\n%s", r.code, r.stderr)
			}
			if n := strings.Count(r.stderr, "storage type swift is run against the target the command line names"); n != 1 {
				t.Errorf("warned %d times:\n%s", n, r.stderr)
			}
			wantObjects(t, s.objects(t, "sw1"), res.Target.Namespace, "myobjects_", []int{1, 2, 3, 4}, 2000)
		})
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "swift.xml"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	r := objbench(t, dir, nil, "run", "swift.xml")
	if r.code != 2 || strings.Count(r.stderr, `storage type "swift" is not supported`) != 1 || !strings.Contains(r.stderr, "name an S3 target") {
		t.Errorf("without a target: exit %d, want 2 and the refusal once:\n%s", r.code, r.stderr)
	}
	if err := os.WriteFile(filepath.Join(dir, "mock.xml"), []byte(cosDoc("mock", stages)), 0o644); err != nil {
		t.Fatal(err)
	}
	r = objbench(t, dir, nil, "run", "--out", filepath.Join(dir, "m.json"), "mock.xml").mustSucceed(t)
	if !strings.Contains(r.stderr, "storage type mock (COSBench's driver that stores nothing) is run against the embedded S3 server") ||
		!strings.Contains(r.stderr, "no endpoint given: embedded S3 server") {
		t.Errorf("mock:\n%s", r.stderr)
	}
	if _, ok, bytes := readResult(t, filepath.Join(dir, "m.json")).OpTotals(result.KindPrepare, "PUT"); ok != 4 || bytes != 8000 {
		t.Errorf("mock prepare: %d ok, %d bytes; want 4 and 8000", ok, bytes)
	}
}

// TestCOSBenchTotalOpsWithRampup: totalOps bounds a work with rampup and
// no runtime (COSBench ignores the rampup then), however long it takes.
func TestCOSBenchTotalOpsWithRampup(t *testing.T) {
	doc := cosDoc("s3", `
    <workstage name="init"><work type="init" workers="1" config="cprefix=ramp;containers=r(1,1)" /></workstage>
    <workstage name="main"><work name="main" workers="4" rampup="1" totalOps="3000">
      <operation type="write" config="cprefix=ramp;containers=c(1);objects=u(1,20);sizes=c(1)KB" /></work></workstage>`)
	for _, s := range cosStores(t) {
		t.Run(s.name, func(t *testing.T) {
			r, res := s.run(t, "rampup", doc)
			if r.code != 0 || res == nil {
				t.Fatalf("exit %d:\n%s", r.code, r.stderr)
			}
			if ops, ok, _ := mainOps(res, "PUT"); ops != 3000 || ok != 3000 {
				t.Errorf("%d PUTs, %d ok; want 3000", ops, ok)
			}
			for _, st := range res.Steps {
				if st.Kind == result.KindMain && st.Streams[0].StoppedBy != "ops" {
					t.Errorf("main stopped by %q, want ops", st.Streams[0].StoppedBy)
				}
			}
			if got := s.objects(t, "ramp1"); len(got) != 20 {
				t.Errorf("the bucket holds %d objects, want the 20 the writes name", len(got))
			}
		})
	}
}

// TestCOSBenchScaleKeepsRangesApart: scaled down, reads of u(1,50) and
// writes of u(51,100) still touch different objects.
func TestCOSBenchScaleKeepsRangesApart(t *testing.T) {
	doc := cosDoc("s3", `
    <workstage name="init"><work type="init" workers="1" config="cprefix=scale;containers=r(1,1)" /></workstage>
    <workstage name="prepare"><work type="prepare" workers="2" config="cprefix=scale;containers=r(1,1);objects=r(1,50);sizes=c(1)KB" /></workstage>
    <workstage name="main"><work name="main" workers="2" totalOps="2000">
      <operation type="read" ratio="50" config="cprefix=scale;containers=c(1);objects=u(1,50)" />
      <operation type="write" ratio="50" config="cprefix=scale;containers=c(1);objects=u(51,100);sizes=c(3)KB" /></work></workstage>`)
	for _, s := range cosStores(t) {
		t.Run(s.name, func(t *testing.T) {
			r, res := s.run(t, "scale", doc, "--scale", "0.01")
			if r.code != 0 || res == nil {
				t.Fatalf("exit %d:\n%s", r.code, r.stderr)
			}
			_, okGet, getBytes := mainOps(res, "GET")
			_, okPut, _ := mainOps(res, "PUT")
			if okGet+okPut != 20 || getBytes != okGet*1000 {
				t.Errorf("%d GETs (%d bytes), %d PUTs; want 20 ops in all, every GET of a 1 KB prepared object", okGet, getBytes, okPut)
			}
			// object 1 was prepared (1 KB) and only read; object 2 only written (3 KB)
			got := s.objects(t, "scale1")
			wantObjects(t, got, res.Target.Namespace, "myobjects_", []int{1, 2}, -1)
			if got[res.Target.Namespace+"myobjects_1"] != 1000 || (okPut > 0 && got[res.Target.Namespace+"myobjects_2"] != 3000) {
				t.Errorf("sizes %v: the reads' object was overwritten, or the writes went elsewhere", got)
			}
		})
	}
}

// TestCOSBenchSplitReadWrite is COSBench's splitrw.xml: a prepare of four
// containers, reads from the first two and writes into the last two. The
// reads are valid (every bucket and number they draw was prepared), every
// read succeeds and checks its bytes, and the store holds what the
// prepare and the writes put, where they put it.
func TestCOSBenchSplitReadWrite(t *testing.T) {
	doc := cosDoc("s3", `
    <workstage name="init"><work type="init" workers="1" config="containers=r(1,4)" /></workstage>
    <workstage name="prepare"><work type="prepare" workers="2" config="containers=r(1,4);objects=r(1,10);sizes=c(1)KB" /></workstage>
    <workstage name="main"><work name="c1p0" workers="4" totalOps="200">
      <operation type="read" ratio="80" config="containers=u(1,2);objects=u(1,10);hashCheck=true" />
      <operation type="write" ratio="20" config="containers=u(3,4);objects=u(11,20);sizes=c(2)KB" /></work></workstage>`)
	for _, s := range cosStores(t) {
		t.Run(s.name, func(t *testing.T) {
			r, res := s.run(t, "splitrw", doc)
			if r.code != 0 || res == nil {
				t.Fatalf("exit %d:\n%s", r.code, r.stderr)
			}
			if strings.Contains(r.stderr, "only part of them") {
				t.Errorf("a fully prepared read was warned about:\n%s", r.stderr)
			}
			gets, okGets, getBytes := mainOps(res, "GET")
			puts, okPuts, _ := mainOps(res, "PUT")
			if gets+puts != 200 || okGets != gets || okPuts != puts || gets < 100 || getBytes != okGets*1000 {
				t.Errorf("%d GETs (%d ok, %d bytes), %d PUTs (%d ok); want 200 ops in all, every one ok", gets, okGets, getBytes, puts, okPuts)
			}
			ns := res.Target.Namespace
			var written int
			for i, b := range []string{"mycontainers-1", "mycontainers-2", "mycontainers-3", "mycontainers-4"} {
				got := s.objects(t, b)
				for n := 1; n <= 20; n++ {
					size, ok := got[ns+"myobjects_"+strconv.Itoa(n)]
					switch {
					case n <= 10 && (!ok || size != 1000):
						t.Errorf("%s: prepared object %d: present %v, %d bytes", b, n, ok, size)
					case n > 10 && i < 2 && ok:
						t.Errorf("%s: object %d was written into a read-only container", b, n)
					case n > 10 && ok && size != 2000:
						t.Errorf("%s: written object %d has %d bytes", b, n, size)
					case n > 10 && ok:
						written++
					}
				}
				if len(got) > 20 {
					t.Errorf("%s holds %d objects", b, len(got))
				}
			}
			if written == 0 || int64(written) > puts {
				t.Errorf("%d distinct objects written by %d PUTs", written, puts)
			}
			checkTotalRow(t, r.stdout, "main", 4)
		})
	}
}

// TestCOSBenchPartlyPreparedReads: reads over more buckets and numbers
// than were prepared run, with a warning, and count the misses as errors.
func TestCOSBenchPartlyPreparedReads(t *testing.T) {
	doc := cosDoc("s3", `
    <workstage name="init"><work type="init" workers="1" config="cprefix=part;containers=r(1,3)" /></workstage>
    <workstage name="prepare"><work type="prepare" workers="2" config="cprefix=part;containers=r(1,2);objects=r(1,5);sizes=c(1)KB" /></workstage>
    <workstage name="main"><work name="m" workers="2" totalOps="300" afr="1000000">
      <operation type="read" config="cprefix=part;containers=u(1,3);objects=u(1,10)" /></work></workstage>`)
	for _, s := range cosStores(t) {
		t.Run(s.name, func(t *testing.T) {
			r, res := s.run(t, "partial", doc)
			if r.code != 0 || res == nil {
				t.Fatalf("exit %d:\n%s", r.code, r.stderr)
			}
			want := `reads objects u(1,10) under "myobjects_", but earlier stages wrote only part of them (bucket part1 holds only 1..5; bucket part2 holds only 1..5; bucket part3 holds none of them)`
			if !strings.Contains(r.stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
			}
			gets, ok, bytes := mainOps(res, "GET")
			// a third of the reads go to the empty bucket, half of the rest miss
			if gets != 300 || ok < 50 || ok > 150 || bytes != ok*1000 {
				t.Errorf("%d GETs, %d ok, %d bytes; want 300, about 100 ok", gets, ok, bytes)
			}
			if got := s.objects(t, "part3"); len(got) != 0 {
				t.Errorf("part3 holds %v", got)
			}
		})
	}
}

// TestCOSBenchRampsLeftOut: rampup and rampdown are run (every worker
// from the start) but their ops are not counted, as COSBench does.
func TestCOSBenchRampsLeftOut(t *testing.T) {
	doc := cosDoc("s3", `
    <workstage name="init"><work type="init" workers="1" config="cprefix=rp;containers=r(1,1)" /></workstage>
    <workstage name="prepare"><work type="prepare" workers="2" config="cprefix=rp;containers=r(1,1);objects=r(1,10);sizes=c(1)KB" /></workstage>
    <workstage name="main"><work name="main" workers="2" rampup="1" runtime="2" rampdown="1">
      <operation type="read" config="cprefix=rp;containers=c(1);objects=u(1,10)" /></work></workstage>`)
	for _, s := range cosStores(t) {
		t.Run(s.name, func(t *testing.T) {
			r, res := s.run(t, "ramp", doc)
			if r.code != 0 || res == nil {
				t.Fatalf("exit %d:\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, "the ops of its first 1 s and last 1 s are left out of its statistics") || strings.Contains(r.stderr, "gradually") {
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
				ops, ok, _ := mainOps(res, "GET")
				// the requests sent in all 4 s, about twice those counted (prepare is another step)
				if ops != inSeconds || ok != ops || ops == 0 || st.Requests < uint64(ops)*5/4 || sr.Window.Start < 1 || sr.Window.End > 3 {
					t.Errorf("%d GETs counted (%d in the seconds kept), %d requests sent; window %+v", ops, inSeconds, st.Requests, sr.Window)
				}
			}
		})
	}
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
			if len(got) != 8 || got[res.Target.Namespace+"myobjects_6"] != 2000 {
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
				r, res := s.run(t, "sz", doc, args...)
				if r.code != 0 || res == nil {
					t.Fatalf("exit %d:\n%s", r.code, r.stderr)
				}
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
				key := res.Target.Namespace + "myobjects_7"
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

// checkTotalRow finds stage's rows in the rates table and checks that its
// TOTAL row has conc workers and the sum of the other rows' OPS/S.
func checkTotalRow(t *testing.T, out, stage string, conc int) {
	t.Helper()
	var sum, total float64
	found := false
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) < 5 || f[0] != stage {
			continue
		}
		if _, err := strconv.Atoi(f[2]); err != nil {
			continue // another table (TTFB, phases)
		}
		v, err := strconv.ParseFloat(f[3], 64)
		if err != nil {
			continue
		}
		if f[1] == "TOTAL" {
			found, total = true, v
			if f[2] != strconv.Itoa(conc) {
				t.Errorf("total row %q: want %d workers", l, conc)
			}
			break
		}
		sum += v
	}
	if !found || total < sum-1 || total > sum+1 {
		t.Errorf("%s: total row %v (found %v), rows sum to %.1f:\n%s", stage, total, found, sum, out)
	}
}

// readCSV reads a whole CSV file (rows of any length).
func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}

// TestCOSBenchCSVArchive: --cosbench-csv writes COSBench's archive: the
// run history grows by a row per run (w1, w2), and the run's directory
// holds the workload CSV, whose counts are the result's, a timeline per
// stage whose seconds add up to them, and the response-time histogram.
func TestCOSBenchCSVArchive(t *testing.T) {
	doc := cosDoc("s3", `
    <workstage name="init"><work type="init" workers="1" config="cprefix=csv;containers=r(1,2)" /></workstage>
    <workstage name="prepare"><work type="prepare" workers="2" config="cprefix=csv;containers=r(1,2);objects=r(1,10);sizes=c(2)KB" /></workstage>
    <workstage name="main">
      <work name="d1" workers="2" totalOps="300"><operation type="read" config="cprefix=csv;containers=c(1);objects=u(1,10)" /></work>
      <work name="d2" workers="2" totalOps="200"><operation type="read" ratio="50" config="cprefix=csv;containers=c(2);objects=u(1,10)" />
        <operation type="write" ratio="50" config="cprefix=csv;containers=c(2);objects=u(11,20);sizes=c(1)KB" /></work>
    </workstage>`)
	for _, s := range cosStores(t) {
		t.Run(s.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "archive")
			var res *result.Run
			for i := 0; i < 2; i++ {
				var r run
				r, res = s.run(t, "csvrun", doc, "--cosbench-csv", dir)
				if r.code != 0 || res == nil {
					t.Fatalf("exit %d:\n%s", r.code, r.stderr)
				}
			}
			hist := readCSV(t, filepath.Join(dir, "run-history.csv"))
			if len(hist) != 3 || strings.Join(hist[0], ",") != "Id,Name,Submitted-At,Started-At,Stopped-At,Op-Info,State,Detailed State" ||
				hist[1][0] != "w1" || hist[2][0] != "w2" || hist[2][1] != "t" || hist[2][5] != "init prepare read write" || hist[2][6] != "finished" {
				t.Errorf("run-history.csv: %q", hist)
			}
			run := filepath.Join(dir, "w2-t")
			rows := readCSV(t, filepath.Join(run, "w2-t.csv"))
			if got := strings.Join(rows[0], ","); got != "Stage,Op-Name,Op-Type,Op-Count,Byte-Count,Avg-ResTime,Avg-ProcTime,60%-ResTime,80%-ResTime,"+
				"90%-ResTime,95%-ResTime,99%-ResTime,100%-ResTime,Throughput,Bandwidth,Succ-Ratio,Status,Detailed Status" {
				t.Errorf("workload CSV header %s", got)
			}
			var mainOK, mainBytes int64
			var names []string
			for _, row := range rows[1:] {
				names = append(names, row[0]+"/"+row[1]+"/"+row[2])
				if row[0] == "s3-main" {
					n, _ := strconv.ParseInt(row[3], 10, 64)
					b, _ := strconv.ParseInt(row[4], 10, 64)
					mainOK, mainBytes = mainOK+n, mainBytes+b
					if row[15] != "100%" || row[16] != "completed" {
						t.Errorf("row %q", row)
					}
				}
			}
			want := "init/N/A/N/A s2-prepare/prepare-write/prepare s3-main/read/read s3-main/write/write s3-main/read/read"
			if strings.Join(names, " ") != want {
				t.Errorf("rows %v, want %s", names, want)
			}
			_, okGet, getBytes := mainOps(res, "GET")
			_, okPut, putBytes := mainOps(res, "PUT")
			if mainOK != 500 || mainOK != okGet+okPut || mainBytes != getBytes+putBytes {
				t.Errorf("CSV: %d ops, %d bytes; result: %d+%d ops, %d+%d bytes", mainOK, mainBytes, okGet, okPut, getBytes, putBytes)
			}
			tl := readCSV(t, filepath.Join(run, "s3-main.csv"))
			if len(tl) < 3 || tl[0][0] != "Timestamp" || tl[0][1] != "Op-Count" || tl[1][1] != "read" || tl[1][2] != "write" || tl[1][3] != "read" {
				t.Fatalf("timeline head %q", tl[:min(len(tl), 2)])
			}
			var secOK int64
			for _, row := range tl[2:] {
				for _, v := range row[1:4] { // Op-Count of the three operations
					n, _ := strconv.ParseInt(v, 10, 64)
					secOK += n
				}
			}
			if secOK != mainOK {
				t.Errorf("the timeline's seconds hold %d ops, the workload CSV %d", secOK, mainOK)
			}
			h := readCSV(t, filepath.Join(run, "w2-t-rt-histogram.csv"))
			if len(h) != 50002 || strings.Join(h[0], ",") != "ResTime,s3-main-w1-d1-read,(%),s3-main-w2-d2-write,(%),s3-main-w2-d2-read,(%)" ||
				h[1][0] != "0~10" || h[50001][0] != "500000~+INF" || h[50001][2] != "100%" {
				t.Errorf("histogram head %q, %d rows, last %q", h[0], len(h), h[len(h)-1])
			}
			var histOK int64
			for _, row := range h[1:] {
				for _, i := range []int{1, 3, 5} {
					n, _ := strconv.ParseInt(row[i], 10, 64)
					histOK += n
				}
			}
			if histOK != mainOK {
				t.Errorf("the histogram holds %d ops, want %d", histOK, mainOK)
			}
			for _, f := range []string{"s1-init.csv", "s2-prepare.csv"} {
				if _, err := os.Stat(filepath.Join(run, f)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	// a directory that cannot be made stops the run before any work
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "c.xml"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	r := objbench(t, dir, nil, "run", "--out", filepath.Join(dir, "r.json"), "--cosbench-csv", filepath.Join(blocker, "sub"), "c.xml")
	if _, err := os.Stat(filepath.Join(dir, "r.json")); r.code != 2 || !strings.Contains(r.stderr, "--cosbench-csv") || err == nil {
		t.Errorf("exit %d (result written: %v):\n%s", r.code, err == nil, r.stderr)
	}
}

// TestDatasetPrepareOnceRunMany: a prepare workload writes into a named
// data set and keeps it (its cleanup and dispose are skipped); main-only
// workloads read it, verifying every byte, as often as asked, for XML and
// YAML; only dataset rm deletes it, and nothing else.
func TestDatasetPrepareOnceRunMany(t *testing.T) {
	prepare := cosDoc("s3", `
    <workstage name="init"><work type="init" workers="1" config="containers=r(1,2)" /></workstage>
    <workstage name="prepare"><work type="prepare" workers="2" config="containers=r(1,2);objects=r(1,20);sizes=u(1,3)KB" /></workstage>
    <workstage name="cleanup"><work type="cleanup" workers="1" config="containers=r(1,2);objects=r(1,20)" /></workstage>
    <workstage name="dispose"><work type="dispose" workers="1" config="containers=r(1,2)" /></workstage>`)
	main := cosDoc("s3", `
    <workstage name="main"><work name="main" workers="2" totalOps="100">
      <operation type="read" config="containers=u(1,2);objects=u(1,20);hashCheck=true" /></work></workstage>`)
	yamlPrep := "name: yp\nstages:\n  - kind: prepare\n    concurrency: 2\n    size: 2KiB\n    objects: {prefix: y/, count: 15}\n"
	yamlMain := "name: ym\nstages:\n  - kind: main\n    concurrency: 2\n    total_ops: 60\n    ops: {get: 100}\n    verify: true\n    objects: {prefix: y/, count: 15}\n"
	for _, s := range cosStores(t) {
		t.Run(s.name, func(t *testing.T) {
			keep := s.bucket(t, "mycontainers-1")
			if err := keep.CreateBucket(context.Background()); err != nil {
				t.Fatal(err)
			}
			if _, err := keep.Put(context.Background(), "keep/me", strings.NewReader("precious"), 8, storage.PutOptions{}); err != nil {
				t.Fatal(err)
			}
			if r, _ := s.run(t, "other", prepare, "--dataset", "other"); r.code != 0 {
				t.Fatalf("another data set: exit %d:\n%s", r.code, r.stderr)
			}
			r, res := s.run(t, "prepare", prepare, "--dataset", "cos1")
			if r.code != 0 || res == nil || res.Target.Namespace != "objbench/data/cos1/" {
				t.Fatalf("prepare: exit %d:\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, "data set cos1 kept under objbench/data/cos1/") {
				t.Errorf("stderr:\n%s", r.stderr)
			}
			want := func(n int) []int {
				var out []int
				for i := 1; i <= n; i++ {
					out = append(out, i)
				}
				return out
			}
			ours := func(bucket, ns string) map[string]int64 {
				out := map[string]int64{}
				for k, v := range s.objects(t, bucket) {
					if strings.HasPrefix(k, ns) {
						out[k] = v
					}
				}
				return out
			}
			for _, b := range []string{"mycontainers-1", "mycontainers-2"} {
				wantObjects(t, ours(b, "objbench/data/cos1/"), "objbench/data/cos1/", "myobjects_", want(20), -1)
			}
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "main.xml"), []byte(main), 0o644); err != nil {
				t.Fatal(err)
			}
			if r := objbench(t, dir, s.env(), "run", "--endpoint-url", s.endpoint, "main.xml"); r.code != 2 || !strings.Contains(r.stderr, "none exist there") {
				t.Errorf("main-only without a data set: exit %d:\n%s", r.code, r.stderr)
			}
			for i := 0; i < 2; i++ { // run many
				r, res := s.run(t, "main", main, "--dataset", "cos1")
				if r.code != 0 || res == nil {
					t.Fatalf("main: exit %d:\n%s", r.code, r.stderr)
				}
				if ops, ok, bytes := mainOps(res, "GET"); ops != 100 || ok != 100 || bytes < 100*1000 {
					t.Errorf("main %d: %d GETs, %d verified ok, %d bytes", i, ops, ok, bytes)
				}
			}
			if r, _ := s.runFile(t, "yp.yaml", yamlPrep, "--dataset", "y1", "--bucket", "mycontainers-2"); r.code != 0 {
				t.Fatalf("yaml prepare: exit %d:\n%s", r.code, r.stderr)
			}
			r, res = s.runFile(t, "ym.yaml", yamlMain, "--dataset", "y1", "--bucket", "mycontainers-2")
			if res == nil {
				t.Fatalf("yaml main: exit %d:\n%s", r.code, r.stderr)
			}
			if ops, ok, _ := mainOps(res, "GET"); r.code != 0 || ops != 60 || ok != 60 {
				t.Errorf("yaml main: exit %d, %d GETs, %d ok:\n%s", r.code, ops, ok, r.stderr)
			}
			if got := ours("mycontainers-2", "objbench/data/y1/"); len(got) != 15 {
				t.Errorf("yaml data set holds %d objects", len(got))
			}
			// rm deletes cos1 and nothing else
			file := filepath.Join(dir, "prepare.xml")
			if err := os.WriteFile(file, []byte(prepare), 0o644); err != nil {
				t.Fatal(err)
			}
			objbench(t, dir, s.env(), "dataset", "rm", "cos1", "--endpoint-url", s.endpoint, "--out", filepath.Join(dir, "rm.json"), "prepare.xml").mustSucceed(t)
			for _, b := range []string{"mycontainers-1", "mycontainers-2"} {
				if got := ours(b, "objbench/data/cos1/"); len(got) != 0 {
					t.Errorf("%s still holds %d objects of cos1", b, len(got))
				}
				if got := ours(b, "objbench/data/other/"); len(got) != 20 {
					t.Errorf("%s holds %d objects of the other data set, want 20", b, len(got))
				}
			}
			if got := s.objects(t, "mycontainers-1"); got["keep/me"] != 8 {
				t.Errorf("keep/me is gone: %v", got)
			}
			if got := ours("mycontainers-2", "objbench/data/y1/"); len(got) != 15 {
				t.Errorf("rm cos1 touched y1: %d objects left", len(got))
			}
		})
	}
}

// runFile is run with the workload written as name.
func (s cosStore) runFile(t *testing.T, name, doc string, args ...string) (run, *result.Run) {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, name)
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r.json")
	r := objbench(t, dir, s.env(), append(append([]string{"run", "--out", out, "--endpoint-url", s.endpoint}, args...), file)...)
	if _, err := os.Stat(out); err != nil {
		return r, nil
	}
	return r, readResult(t, out)
}
