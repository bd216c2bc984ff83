package workload_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/workload"
)

// decodeWarn decodes a COSBench document and returns its warnings as text.
func decodeWarn(t *testing.T, doc string, o workload.DecodeOptions) (workload.Spec, string) {
	t.Helper()
	sp, warns, err := workload.DecodeWith("c.xml", []byte(doc), o)
	if err != nil {
		t.Fatalf("decode:\n%v", err)
	}
	var ws []string
	for _, w := range warns {
		ws = append(ws, w.String())
	}
	return sp, strings.Join(ws, "\n")
}

func TestCOSBenchRatioDefaultsTo100(t *testing.T) {
	sp, _ := decodeWarn(t, cosbench(`<workstage name="m"><work name="m" workers="1" totalOps="5">
<operation type="write" config="containers=c(1);objects=u(1,9);cprefix=bkt;sizes=c(1)KB"/></work></workstage>`), workload.DecodeOptions{})
	if m := sp.Stages[0].Streams[0].Mix; len(m) != 1 || m[0].Weight != 100 {
		t.Errorf("mix %+v, want one op of weight 100", m)
	}
}

func TestCOSBenchInvalidContainerNamesMapToBuckets(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"mycontainers_1", "mycontainers-1"},
		{"My_Bucket_7", "my-bucket-7"},
		{"_x_", "cosbench-x"},
		{"ok-name.1", "ok-name.1"},
		{"a..b_", "a.-b"},
		{strings.Repeat("long_", 20) + "1", strings.Repeat("long-", 10) + "long"},
	} {
		got := workload.S3BucketName(c.in)
		if !strings.HasPrefix(got, c.want) || !workload.ValidBucketName(got) {
			t.Errorf("%q became %q; want %q (and a valid name)", c.in, got, c.want)
		}
		if again := workload.S3BucketName(c.in); again != got {
			t.Errorf("%q maps to %q then %q", c.in, got, again)
		}
	}
	sp, warns := decodeWarn(t, cosbench(`<workstage name="i"><work type="init" workers="1" config="containers=r(1,3);cprefix=mycontainers_"/></workstage>
<workstage name="d"><work type="dispose" workers="1" config="containers=r(1,3);cprefix=mycontainers_"/></workstage>`), workload.DecodeOptions{})
	if b := strings.Join(sp.Stages[0].Streams[0].Objects.Buckets, ","); b != "mycontainers-1,mycontainers-2,mycontainers-3" {
		t.Errorf("buckets %s", b)
	}
	if n := strings.Count(warns, "not valid S3 bucket names"); n != 1 || !strings.Contains(warns, "c.xml:5: container names mycontainers_<N> ") ||
		!strings.Contains(warns, "mycontainers_1 -> mycontainers-1") {
		t.Errorf("want one warning with the mapping at c.xml:5, got:\n%s", warns)
	}
	_, _, err := workload.Decode("c.xml", []byte(cosbench(`<workstage name="i"><work type="init" workers="1" config="containers=r(1,2);cprefix=b_"/>
<work type="init" workers="1" config="containers=r(1,2);cprefix=b-"/></workstage>`)))
	if err == nil || !strings.Contains(err.Error(), `containers "b_1" and "b-1" both map to the S3 bucket "b-1"`) {
		t.Errorf("a clash: %v", err)
	}
}

// TestCOSBenchDefaultNames: without cprefix and oprefix, containers are
// mycontainers<N> and objects myobjects<N>, as COSBench names them since
// 0.4.0 (dev/cosbench-driver/src/com/intel/cosbench/driver/util/
// Defaults.java: CONTAINER_PREFIX "mycontainers", OBJECT_PREFIX
// "myobjects", suffixes null, which StringUtils.join in
// NumericNameGenerator writes as nothing); valid bucket names, so nothing
// is mapped or warned about.
func TestCOSBenchDefaultNames(t *testing.T) {
	sp, warns := decodeWarn(t, cosbench(`<workstage name="p"><work type="prepare" workers="1" config="containers=r(1,2);objects=r(7,8);sizes=c(1)KB"/></workstage>`),
		workload.DecodeOptions{})
	ks := sp.Stages[0].Streams[0].Objects
	if b := strings.Join(ks.Buckets, ","); b != "mycontainers1,mycontainers2" || ks.Prefix != "myobjects" || ks.Suffix != "" {
		t.Errorf("buckets %s, objects %q<N>%q; want mycontainers1,mycontainers2 and myobjects<N>", b, ks.Prefix, ks.Suffix)
	}
	if strings.Contains(warns, "not valid S3 bucket names") {
		t.Errorf("the default names were mapped:\n%s", warns)
	}
}

func TestCOSBenchOtherStorageTypes(t *testing.T) {
	doc := func(typ string) string {
		return `<workload name="w"><storage type="` + typ + `" config="auth_url=http://keystone/v2;username=u;password=p"/><workflow>
<workstage name="s"><work type="init" workers="1" config="containers=c(1);cprefix=bkt"/></workstage>
<workstage name="t"><work type="dispose" workers="1" config="containers=c(1);cprefix=bkt"><storage type="` + typ + `"/></work></workstage></workflow></workload>`
	}
	for _, c := range []struct {
		typ    string
		target bool
		want   string // the warning; "" means refused
	}{
		{"swift", false, ""},
		{"librados", false, ""},
		{"swift", true, "c.xml:1: storage type swift is run against the target the command line names, containers as buckets; its config is not used"},
		{"mock", false, "c.xml:1: storage type mock (COSBench's driver that stores nothing) is run against the embedded S3 server"},
		{"mock", true, "storage type mock (COSBench's driver that stores nothing) is run against the target the command line names"},
	} {
		_, warns, err := workload.DecodeWith("c.xml", []byte(doc(c.typ)), workload.DecodeOptions{Target: c.target})
		if c.want == "" {
			want := `c.xml:1: storage type "` + c.typ + `" is not supported: objbench measures S3-compatible stores (type "s3"); name an S3 target`
			// Once per place it is written (the workload's and a work's storage).
			if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Count(err.Error(), "is not supported") != 2 ||
				!strings.Contains(err.Error(), "\nc.xml:3: storage type") {
				t.Errorf("%s without a target: want the refusal once per <storage>, got %v", c.typ, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s, target %v: %v", c.typ, c.target, err)
			continue
		}
		var ws []string
		for _, w := range warns {
			ws = append(ws, w.String())
		}
		if got := strings.Join(ws, "\n"); !strings.Contains(got, c.want) || strings.Count(got, "storage type") != 1 {
			t.Errorf("%s, target %v: warnings\n%s\nwant one with %q", c.typ, c.target, got, c.want)
		}
	}
}

func TestCOSBenchTotalOpsWithRampupIsNotATimeLimit(t *testing.T) {
	sp, warns := decodeWarn(t, cosbench(`<workstage name="m"><work name="m" workers="2" rampup="2" totalOps="200000">
<operation type="write" config="containers=c(1);objects=u(1,9);cprefix=bkt;sizes=c(1)KB"/></work></workstage>`), workload.DecodeOptions{})
	if b := sp.Stages[0].Streams[0].Bounds; b.Duration != 0 || b.Ops != 200000 {
		t.Errorf("bounds %+v; want 200000 ops and no duration", b)
	}
	if !strings.Contains(warns, "rampup=2 rampdown=0 without runtime: ignored, as COSBench does") {
		t.Errorf("warnings:\n%s", warns)
	}
	sp, _ = decodeWarn(t, cosbench(`<workstage name="m"><work name="m" workers="2" rampup="2" runtime="5" rampdown="1" totalOps="9">
<operation type="write" config="containers=c(1);objects=u(1,9);cprefix=bkt;sizes=c(1)KB"/></work></workstage>`), workload.DecodeOptions{})
	if b := sp.Stages[0].Streams[0].Bounds; b.Duration != 8*time.Second || b.Ops != 8 || !b.PerWorker {
		t.Errorf("with a runtime: bounds %+v; want 8s, and 9/2 = 4 ops by each of 2 workers", b)
	}
}

// TestCOSBenchTotalsPerWorker: totalOps and totalBytes are divided among
// the work's workers with integer division, each worker stopping at its
// own part, and a part of 0 is no limit
// (dev/cosbench-driver/src/com/intel/cosbench/driver/agent/WorkAgent.java:
// initLimites divides mission.getTotalOps() and getTotalBytes() by
// getTotalWorkers(); trySummary ends a worker once its own count reaches
// its part, and skips a limit <= 0).
func TestCOSBenchTotalsPerWorker(t *testing.T) {
	work := func(attrs string) string {
		return cosbench(`<workstage name="m"><work name="m" ` + attrs + `>
<operation type="write" config="containers=c(1);objects=u(1,9);cprefix=bkt;sizes=c(3)KB"/></work></workstage>`)
	}
	for _, c := range []struct {
		attrs      string
		ops, bytes int64 // in all; each worker does its part
		warn       string
	}{
		{`workers="8" totalOps="30"`, 24, 0, "totalOps=30 with 8 workers: each worker does 30/8 = 3 ops, as in COSBench, 24 in all"},
		{`workers="3" totalBytes="10000"`, 0, 9999, ""},
		{`workers="4" totalOps="40"`, 40, 0, ""},
		{`workers="8" totalOps="5" runtime="10"`, 0, 0, "totalOps=5 with 8 workers gives each worker 5/8 = 0, which COSBench takes as no limit: ignored"},
	} {
		sp, warns := decodeWarn(t, work(c.attrs), workload.DecodeOptions{})
		s := sp.Stages[0].Streams[0]
		if b := s.Bounds; b.Ops != c.ops || b.Bytes != c.bytes || !b.PerWorker {
			t.Errorf("%s: bounds %+v; want %d ops and %d bytes, per worker", c.attrs, b, c.ops, c.bytes)
		}
		if c.warn != "" && !strings.Contains(warns, c.warn) || c.warn == "" && strings.Contains(warns, "workers") {
			t.Errorf("%s: warnings\n%s\nwant %q", c.attrs, warns, c.warn)
		}
		if errs := sp.Validate(); len(errs) > 0 {
			t.Errorf("%s: %v", c.attrs, errs)
		}
	}
	if ops, bytes := (workload.Bounds{Bytes: 9999, PerWorker: true}).WorkerPart(3); ops != 0 || bytes != 3333 {
		t.Errorf("a worker's part of 9999 bytes among 3: %d ops, %d bytes", ops, bytes)
	}
	_, _, err := workload.Decode("c.xml", []byte(work(`workers="8" totalOps="5"`)))
	if err == nil || !strings.Contains(err.Error(), "c.xml:5: totalOps=5 with 8 workers gives each worker 5/8 = 0, which COSBench takes as no limit: the work would never end (give at least 8)") {
		t.Errorf("totalOps below the workers and no other limit: %v", err)
	}
}

func TestScaleKeepsSeparateRangesSeparate(t *testing.T) {
	sp := decodeOK(t, "c.xml", cosbench(`
    <workstage name="p"><work type="prepare" workers="4" config="containers=r(1,2);cprefix=bkt;objects=r(1,50);sizes=c(1)KB" /></workstage>
    <workstage name="m"><work name="m" workers="8" runtime="30">
      <operation type="read" ratio="50" config="containers=u(1,2);cprefix=bkt;objects=u(1,50)" />
      <operation type="write" ratio="30" config="containers=u(1,2);cprefix=bkt;objects=u(51,100);sizes=c(1)KB" />
      <operation type="delete" ratio="20" config="containers=u(1,2);cprefix=bkt;objects=h(101|150|50,151|200|50)" /></work></workstage>`))
	s := sp.Scale(0.01)
	m := s.Stages[1].Streams[0]
	got := []string{s.Stages[0].Streams[0].Objects.Index.String(), m.OpObjects(m.Mix[0]).Index.String(),
		m.OpObjects(m.Mix[1]).Index.String(), m.OpObjects(m.Mix[2]).Index.String()}
	if strings.Join(got, " ") != "r(1,1) u(1,1) u(2,2) h(3|3|50,4|4|50)" {
		t.Errorf("scaled: %v", got)
	}
	if errs := s.Validate(); len(errs) != 0 {
		t.Errorf("the scaled spec is not valid: %v", errs)
	}
}

func TestCOSBenchReadsMatchedByCoverage(t *testing.T) {
	prep := `<workstage name="p"><work type="prepare" workers="1" config="cprefix=b-;containers=r(1,4);objects=r(1,50);sizes=c(1)KB"/></workstage>`
	for _, c := range []struct{ name, read, warn, err string }{
		{"a subset of the buckets", "containers=u(1,2);objects=u(1,50)", "", ""},
		{"one bucket, some numbers", "containers=c(3);objects=u(10,20)", "", ""},
		{"a bucket more", "containers=u(3,5);objects=u(1,50)", "bucket b-5 holds none of them", ""},
		{"numbers more", "containers=u(1,2);objects=u(40,60)", "(bucket b-1 holds only 1..50; bucket b-2 holds only 1..50): those reads fail and count as errors, as in COSBench", ""},
		{"nothing written", "containers=u(5,6);objects=u(1,50)", "", `reads objects u(1,50) under "myobjects", but none exist there`},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc := cosbench(prep + `<workstage name="m"><work name="m" workers="1" runtime="1"><operation type="read" config="cprefix=b-;` + c.read + `"/></work></workstage>`)
			sp, warns, err := workload.Decode("c.xml", []byte(doc))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("got %v; want an error with %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var ws []string
			for _, w := range warns {
				ws = append(ws, w.String())
			}
			got := strings.Join(ws, "\n")
			if c.warn == "" && strings.Contains(got, "only part") || c.warn != "" && !strings.Contains(got, "c.xml:5: stage 2 (m) stream 1 (m): reads objects") ||
				!strings.Contains(got, c.warn) {
				t.Errorf("warnings:\n%s\nwant %q", got, c.warn)
			}
			if len(sp.Source.Warnings) != len(warns) {
				t.Errorf("the spec records %d warnings of %d", len(sp.Source.Warnings), len(warns))
			}
		})
	}
}

// TestCOSBenchDelay: COSBench's controller sleeps only in a workstage
// named delay, and runs none of its works then
// (dev/cosbench-controller/src/com/intel/cosbench/controller/service/
// WorkloadProcessor.java, runStage: stageName.equals("delay") &&
// closuredelay > 0); a delay work elsewhere fails, its driver having no
// delay operator (dev/cosbench-driver/src/com/intel/cosbench/driver/
// operator/Operators.java). objbench waits there too, and says COSBench
// would not. Every stage keeps its workstage's number and name, so
// COSBench's CSV numbers its stages as COSBench does.
func TestCOSBenchDelay(t *testing.T) {
	sp, warns := decodeWarn(t, cosbench(`<workstage name="init"><work type="init" workers="1" config="containers=r(1,1)"/></workstage>
<workstage name="delay" closuredelay="3"><work type="delay" workers="1"/></workstage>
<workstage name="delay" closuredelay="4"><work name="w" workers="1" totalOps="5"><operation type="write" config="containers=c(1);objects=u(1,9);sizes=c(1)KB"/></work></workstage>
<workstage name="pause" closuredelay="5"><work type="delay" workers="1"/></workstage>
<workstage name="zero"><work type="delay" workers="1"/></workstage>
<workstage name="main" closuredelay="2"><work name="m" workers="1" totalOps="5"><operation type="write" config="containers=c(1);objects=u(1,9);sizes=c(1)KB"/></work></workstage>`),
		workload.DecodeOptions{})
	type st struct {
		kind  workload.StageKind
		delay time.Duration
		ws    int
		name  string
	}
	var got []st
	for _, s := range sp.Stages {
		got = append(got, st{s.Kind, s.Delay, s.Workstage.Index, s.Workstage.Name})
	}
	want := []st{{"init", 0, 1, "init"}, {"delay", 3 * time.Second, 2, "delay"}, {"delay", 4 * time.Second, 3, "delay"},
		{"delay", 5 * time.Second, 4, "pause"}, {"main", 0, 6, "main"}, {"delay", 2 * time.Second, 6, "main"}}
	if !slices.Equal(got, want) {
		t.Errorf("stages %v\nwant %v", got, want)
	}
	for _, w := range []string{
		`c.xml:7: workstage "delay" runs only its closuredelay of 4s, as in COSBench: its main works are not run`,
		`c.xml:8: delay work in workstage "pause": COSBench fails this stage (its driver has no delay operator; only a workstage named delay sleeps); objbench waits its closuredelay of 5s`,
		`c.xml:9: delay work in workstage "zero" with closuredelay 0: COSBench fails this stage`,
	} {
		if !strings.Contains(warns, w) {
			t.Errorf("warnings lack %q:\n%s", w, warns)
		}
	}
	if strings.Contains(warns, "c.xml:6:") {
		t.Errorf("a delay work in a workstage named delay was warned about:\n%s", warns)
	}
}

// TestCOSBenchKeys: COSBench's key layout reads what no stage writes
// (another client's objects under COSBench's names), plans keys without
// objbench's namespace and says what it promises; it is refused outside a
// COSBench file and with a data set.
func TestCOSBenchKeys(t *testing.T) {
	doc := cosbench(`<workstage name="m"><work name="m" workers="1" totalOps="5"><operation type="read" config="containers=c(1);objects=u(1,9)"/></work></workstage>`)
	if _, _, err := workload.DecodeWith("c.xml", []byte(doc), workload.DecodeOptions{}); err == nil {
		t.Error("reads of objects nothing writes, in objbench's namespace, were accepted")
	}
	sp, _, err := workload.DecodeWith("c.xml", []byte(doc), workload.DecodeOptions{BareKeys: true})
	if err != nil || !sp.BareKeys {
		t.Fatalf("reads of objects already there under COSBench's names: %v", err)
	}
	var plan strings.Builder
	if err := workload.WritePlan(&plan, sp); err != nil {
		t.Fatal(err)
	}
	if p := plan.String(); !strings.Contains(p, "keys myobjects{u(1,9)}") || strings.Contains(p, "objbench/RUN-ID") ||
		!strings.Contains(p, "keys: COSBench's key layout (--cosbench-keys)") {
		t.Errorf("plan:\n%s", p)
	}
	if _, _, err := workload.DecodeWith("c.xml", []byte(doc), workload.DecodeOptions{BareKeys: true, Dataset: "d"}); err == nil ||
		!strings.Contains(err.Error(), "COSBench's key layout and a data set exclude each other") {
		t.Errorf("with a data set: %v", err)
	}
	yaml := "name: y\nstages:\n  - kind: main\n    concurrency: 1\n    total_ops: 5\n    ops: {put: 100}\n    objects: {prefix: p/, count: 3}\n"
	if _, _, err := workload.DecodeWith("y.yaml", []byte(yaml), workload.DecodeOptions{BareKeys: true}); err == nil ||
		!strings.Contains(err.Error(), "COSBench's key layout is for COSBench workloads only") {
		t.Errorf("a YAML file: %v", err)
	}
}
