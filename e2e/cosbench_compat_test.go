package e2e_test

import (
	"context"
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

// mustRun is run, failing the test unless the run succeeded and wrote its
// result.
func (s cosStore) mustRun(t *testing.T, name, doc string, args ...string) (run, *result.Run) {
	t.Helper()
	r, res := s.run(t, name, doc, args...)
	if r.code != 0 || res == nil {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	return r, res
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
// (names, operations without ratio) runs, and the store holds what it
// should in buckets mycontainers<N>, objects myobjects<N>
// (dev/cosbench-driver/src/com/intel/cosbench/driver/util/Defaults.java).
func TestCOSBenchDefaultsRun(t *testing.T) {
	doc := cosDoc("s3", `
    <workstage name="init"><work type="init" workers="1" config="containers=r(1,2)" /></workstage>
    <workstage name="prepare"><work type="prepare" workers="2" config="containers=r(1,2);objects=r(1,10);sizes=c(1)KB" /></workstage>
    <workstage name="main"><work name="main" workers="2" totalOps="40">
      <operation type="read" config="containers=u(1,2);objects=u(1,10)" /></work></workstage>`)
	for _, s := range cosStores(t) {
		t.Run(s.name, func(t *testing.T) {
			r, res := s.mustRun(t, "defaults", doc)
			if strings.Contains(r.stderr, "not valid S3 bucket names") {
				t.Errorf("COSBench's default names were mapped:\n%s", r.stderr)
			}
			if ops, ok, bytes := mainOps(res, "GET"); ops != 40 || ok != 40 || bytes != 40*1000 {
				t.Errorf("main: %d GETs, %d ok, %d bytes; want 40 of 1000 bytes each", ops, ok, bytes)
			}
			for _, b := range []string{"mycontainers1", "mycontainers2"} {
				wantObjects(t, s.objects(t, b), res.Target.Namespace, "myobjects", []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 1000)
			}
			if got := s.objects(t, "mycontainers-1"); got != nil {
				t.Errorf("a bucket of the old mapped name exists: %v", got)
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
			r, res := s.mustRun(t, "swift", doc)
			if n := strings.Count(r.stderr, "storage type swift is run against the target the command line names"); n != 1 {
				t.Errorf("warned %d times:\n%s", n, r.stderr)
			}
			wantObjects(t, s.objects(t, "sw1"), res.Target.Namespace, "myobjects", []int{1, 2, 3, 4}, 2000)
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
			_, res := s.mustRun(t, "rampup", doc)
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
			_, res := s.mustRun(t, "scale", doc, "--scale", "0.01")
			_, okGet, getBytes := mainOps(res, "GET")
			_, okPut, _ := mainOps(res, "PUT")
			if okGet+okPut != 20 || getBytes != okGet*1000 {
				t.Errorf("%d GETs (%d bytes), %d PUTs; want 20 ops in all, every GET of a 1 KB prepared object", okGet, getBytes, okPut)
			}
			// object 1 was prepared (1 KB) and only read; object 2 only written (3 KB)
			got := s.objects(t, "scale1")
			wantObjects(t, got, res.Target.Namespace, "myobjects", []int{1, 2}, -1)
			if got[res.Target.Namespace+"myobjects1"] != 1000 || (okPut > 0 && got[res.Target.Namespace+"myobjects2"] != 3000) {
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
			r, res := s.mustRun(t, "splitrw", doc)
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
			for i, b := range []string{"mycontainers1", "mycontainers2", "mycontainers3", "mycontainers4"} {
				got := s.objects(t, b)
				for n := 1; n <= 20; n++ {
					size, ok := got[ns+"myobjects"+strconv.Itoa(n)]
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
			r, res := s.mustRun(t, "partial", doc)
			want := `reads objects u(1,10) under "myobjects", but earlier stages wrote only part of them (bucket part1 holds only 1..5; bucket part2 holds only 1..5; bucket part3 holds none of them)`
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
