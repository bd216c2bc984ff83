package workload_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/workload"
)

// cosbench wraps work stages in a workload with an s3 storage.
func cosbench(stages string) string {
	return `<?xml version="1.0" encoding="UTF-8" ?>
<workload name="t" description="test">
  <storage type="s3" config="accesskey=AK;secretkey=SECRET-KEY;endpoint=http://10.1.1.1:9000;path_style_access=true" />
  <workflow>
` + stages + `
  </workflow>
</workload>`
}

func TestCOSBenchMapsWorksOntoStages(t *testing.T) {
	sp := decodeOK(t, "c.xml", cosbench(`
    <workstage name="init"><work type="init" workers="1" config="containers=r(1,2)" /></workstage>
    <workstage name="prepare"><work type="prepare" workers="4" config="containers=r(1,2);objects=r(1,10);sizes=c(64)KB" /></workstage>
    <workstage name="main" closuredelay="3">
      <work name="main" workers="8" runtime="30" afr="100000">
        <operation type="read" ratio="80" config="containers=u(1,2);objects=u(1,10)" />
        <operation type="write" ratio="20" config="containers=u(1,2);objects=u(11,20);sizes=c(64)KB" />
      </work>
    </workstage>
    <workstage name="cleanup"><work type="cleanup" workers="2" config="containers=r(1,2);objects=r(1,20)" /></workstage>
    <workstage name="dispose"><work type="dispose" workers="1" config="containers=r(1,2)" /></workstage>`))
	var kinds []string
	for _, st := range sp.Stages {
		kinds = append(kinds, string(st.Kind))
	}
	if strings.Join(kinds, ",") != "init,prepare,main,delay,cleanup,dispose" {
		t.Fatalf("stages %v", kinds)
	}
	init := sp.Stages[0].Streams[0].Objects
	if strings.Join(init.Buckets, ",") != "mycontainers1,mycontainers2" { // driver/util/Defaults.java
		t.Errorf("COSBench's default container names: %v", init.Buckets)
	}
	prep := sp.Stages[1].Streams[0]
	if prep.Objects.Prefix != "myobjects" || prep.Objects.Index.String() != "r(1,10)" || prep.Size != 64000 || prep.ConcurrencyAt(0) != 4 {
		t.Errorf("prepare stream %+v", prep)
	}
	main := sp.Stages[2]
	s := main.Streams[0]
	if s.Bounds.Duration != 30*time.Second || s.ConcurrencyAt(0) != 8 || main.OnError.MaxErrorRatio != 0.1 || !s.Percent {
		t.Errorf("main: bounds %+v, workers %d, policy %+v", s.Bounds, s.ConcurrencyAt(0), main.OnError)
	}
	if s.Mix[1].Objects == nil || s.Mix[1].Objects.Index.String() != "u(11,20)" || s.Objects.BucketPick.String() != "u(1,2)" {
		t.Errorf("the write keeps its own objects: %+v", s.Mix[1])
	}
	if sp.Stages[3].Delay != 3*time.Second {
		t.Errorf("closuredelay became a delay of %v", sp.Stages[3].Delay)
	}
	if st := sp.Storage; st.Endpoint != "http://10.1.1.1:9000" || st.Addressing != "path" || st.SecretKey != "SECRET-KEY" {
		t.Errorf("storage %+v", st)
	}
	b, _ := json.Marshal(sp)
	if strings.Contains(string(b), "SECRET-KEY") || strings.Contains(string(b), `"AK"`) {
		t.Error("the spec as recorded holds the file's credentials")
	}
}

func TestCOSBenchEdgeCases(t *testing.T) {
	for _, c := range []struct {
		name, stages string
		check        func(t *testing.T, sp workload.Spec, warns string)
	}{
		{"delay stage and a 0% operation", `<workstage name="pause" closuredelay="7"><work type="delay" workers="1"/></workstage>
<workstage name="m"><work name="m" workers="1" totalOps="10"><operation type="delete" ratio="100" config="containers=c(1);objects=c(1)"/>
<operation type="write" ratio="0" config="containers=c(1);objects=c(2);sizes=c(1)B"/></work></workstage>`,
			func(t *testing.T, sp workload.Spec, _ string) {
				if sp.Stages[0].Kind != result.KindDelay || sp.Stages[0].Delay != 7*time.Second || len(sp.Stages[1].Streams[0].Mix) != 1 {
					t.Errorf("stages %+v", sp.Stages)
				}
			}},
		{"histogram containers map to positions", `<workstage name="m"><work name="m" workers="1" runtime="1">
<operation type="write" ratio="100" config="cprefix=bkt;containers=h(3|3|90,7|8|10);objects=c(1);sizes=c(1)B"/></work></workstage>`,
			func(t *testing.T, sp workload.Spec, _ string) {
				ks := sp.Stages[0].Streams[0].Objects
				if strings.Join(ks.Buckets, ",") != "bkt3,bkt7,bkt8" || ks.BucketPick.String() != "h(1|1|90,2|3|10)" {
					t.Errorf("buckets %v picked %s", ks.Buckets, ks.BucketPick)
				}
			}},
		{"hashCheck verifies, content=zero compresses, filewrite warns", `<workstage name="p"><work type="prepare" workers="1" config="containers=c(1);objects=r(1,2);sizes=c(1)KB;content=zero"/></workstage>
<workstage name="m"><work name="m" workers="1" runtime="1">
<operation type="read" ratio="50" config="containers=c(1);objects=u(1,2);hashCheck=true"/>
<operation type="filewrite" ratio="50" config="containers=c(1);objects=u(3,4);sizes=c(2)KB;files=/tmp/x"/></work></workstage>`,
			func(t *testing.T, sp workload.Spec, warns string) {
				if !sp.Stages[1].Streams[0].Data.Verify || sp.Stages[0].Streams[0].Data.Compress != 4096 {
					t.Errorf("data %+v / %+v", sp.Stages[1].Streams[0].Data, sp.Stages[0].Streams[0].Data)
				}
				for _, w := range []string{"c.xml:5: content=zero", "c.xml:8: filewrite"} {
					if !strings.Contains(warns, w) {
						t.Errorf("no warning %q in:\n%s", w, warns)
					}
				}
			}},
		{"createContainer and deleteContainer", `<workstage name="p"><work type="prepare" workers="1" config="containers=c(1);objects=r(1,2);sizes=c(1)KB;createContainer=true"/></workstage>
<workstage name="c"><work type="cleanup" workers="1" config="containers=c(1);objects=r(1,2);deleteContainer=true"/></workstage>`,
			func(t *testing.T, sp workload.Spec, _ string) {
				var kinds []string
				for _, st := range sp.Stages {
					kinds = append(kinds, string(st.Kind))
				}
				if strings.Join(kinds, ",") != "init,prepare,cleanup,dispose" {
					t.Errorf("stages %v", kinds)
				}
			}},
		{"per-work storage", `<workstage name="m"><work name="m" workers="1" runtime="1">
<storage type="s3" config="endpoint=http://other:1;accesskey=A2;secretkey=S2"/>
<operation type="list" ratio="100" config="containers=c(1)"/></work></workstage>`,
			func(t *testing.T, sp workload.Spec, _ string) {
				if st := sp.Stages[0].Streams[0].Storage; st == nil || st.Endpoint != "http://other:1" || st.AccessKey != "A2" {
					t.Errorf("stream storage %+v", st)
				}
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			sp, warns, err := workload.Decode("c.xml", []byte(cosbench(c.stages)))
			if err != nil {
				t.Fatal(err)
			}
			var ws []string
			for _, w := range warns {
				ws = append(ws, w.String())
			}
			c.check(t, sp, strings.Join(ws, "\n"))
		})
	}
}

func TestCOSBenchProblems(t *testing.T) {
	for _, c := range []struct{ name, doc, want string }{
		{"swift", `<workload name="w"><storage type="swift"/><workflow><workstage name="s"><work type="delay" workers="1"/></workstage></workflow></workload>`, `c.xml:1: storage type "swift" is not supported`},
		{"cdmi", `<workload name="w"><storage type="cdmi"/><workflow/></workload>`, `storage type "cdmi" is not supported`},
		{"placeholder keys", `<workload name="w"><storage type="s3" config="accesskey=<accesskey>"/></workload>`, "replace placeholders"},
		{"not a workload", `<workflow/>`, "starts with <workload>"},
		{"no limit", cosbench(`<workstage name="m"><work name="m" workers="2"><operation type="read" ratio="100" config="containers=c(1);objects=c(1)"/></work></workstage>`), `work "m" has no limit`},
		{"ratios", cosbench(`<workstage name="m"><work name="m" workers="2" runtime="5"><operation type="read" ratio="60" config="containers=c(1);objects=c(1)"/></work></workstage>`), "ratios sum to 60"},
		{"missing workers", cosbench(`<workstage name="i"><work type="init" config="containers=c(1)"/></workstage>`), "<work> needs workers="},
		{"missing sizes", cosbench(`<workstage name="p"><work type="prepare" workers="1" config="containers=c(1);objects=r(1,2)"/></workstage>`), "config needs sizes="},
		{"bad selector", cosbench(`<workstage name="p"><work type="prepare" workers="1" config="containers=c(1);objects=r(9,2);sizes=c(1)KB"/></workstage>`), "objects: bad selector"},
		{"unknown work type", cosbench(`<workstage name="p"><work type="bake" workers="1"/></workstage>`), `work type "bake"`},
		{"read nothing prepared", cosbench(`<workstage name="m"><work name="m" workers="2" runtime="5"><operation type="read" ratio="100" config="containers=c(1);objects=u(1,9)"/></work></workstage>`), "but none exist there"},
		{"read outside prepared", cosbench(`<workstage name="p"><work type="prepare" workers="1" config="containers=c(1);objects=r(1,5);sizes=c(1)KB"/></workstage>
<workstage name="m"><work name="m" workers="2" runtime="5"><operation type="read" ratio="100" config="containers=c(1);objects=u(6,9)"/></work></workstage>`), "reads objects u(6,9) under \"myobjects\", but none exist there"},
		{"syntax", `<workload name="w"><workflow></workload>`, "c.xml:1: XML syntax error"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := workload.Decode("c.xml", []byte(c.doc))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v; want an error with %q", err, c.want)
			}
		})
	}
}

func TestScaleShrinksCountsAndTimesButNotSizes(t *testing.T) {
	sp := decodeOK(t, "c.xml", cosbench(`
    <workstage name="prepare"><work type="prepare" workers="4" config="containers=r(1,2);objects=r(1,10000);sizes=c(100)KB" /></workstage>
    <workstage name="main" closuredelay="60"><work name="main" workers="128" runtime="300" totalOps="1000000">
      <operation type="read" ratio="100" config="containers=u(1,2);objects=u(1,10000)" /></work></workstage>`))
	s := sp.Scale(0.01)
	prep, main := s.Stages[0].Streams[0], s.Stages[1].Streams[0]
	if prep.Objects.Index.String() != "r(1,100)" || prep.Size != 100000 || main.Objects.Index.String() != "u(1,100)" {
		t.Errorf("prepare %s of %d bytes, main reads %s", prep.Objects.Index, prep.Size, main.Objects.Index)
	}
	// 1000000/128 = 7812 ops by each worker (COSBench's WorkAgent.initLimites), 78.12 of them at 0.01: 79 each
	if main.Bounds.Duration != 3*time.Second || main.Bounds.Ops != 79*128 || main.ConcurrencyAt(0) != 128 || s.Stages[2].Delay != 600*time.Millisecond {
		t.Errorf("main bounds %+v, workers %d, delay %v", main.Bounds, main.ConcurrencyAt(0), s.Stages[2].Delay)
	}
	if s.ScaledBy != 0.01 || sp.Stages[0].Streams[0].Objects.Index.String() != "r(1,10000)" {
		t.Errorf("scaled by %v; the original changed: %s", s.ScaledBy, sp.Stages[0].Streams[0].Objects.Index)
	}
	if errs := s.Validate(); len(errs) != 0 {
		t.Errorf("the scaled spec is not valid: %v", errs)
	}
}

// TestScaleShrinksContainers: --scale shrinks COSBench's containers as it
// shrinks object numbers, segment by segment: asus.xml's 431 containers
// become 9 at 0.02, and splitrw.xml's reads of containers u(1,2) beside
// writes into u(3,4) of a prepared r(1,4) keep to containers apart.
func TestScaleShrinksContainers(t *testing.T) {
	sp := decodeOK(t, "c.xml", cosbench(`
    <workstage name="init"><work type="init" workers="1" config="containers=r(1,431)" /></workstage>
    <workstage name="prepare"><work type="prepare" workers="4" config="cprefix=sp;containers=r(1,4);objects=r(1,10);sizes=c(1)KB" /></workstage>
    <workstage name="main"><work name="main" workers="4" totalOps="100">
      <operation type="read" ratio="80" config="cprefix=sp;containers=u(1,2);objects=u(1,10)" />
      <operation type="write" ratio="20" config="cprefix=sp;containers=u(3,4);objects=u(11,20);sizes=c(1)KB" /></work></workstage>`))
	asus := sp.Scale(0.02).Stages[0].Streams[0].Objects
	if len(asus.Buckets) != 9 || asus.Buckets[0] != "mycontainers1" || asus.Buckets[8] != "mycontainers9" {
		t.Errorf("431 containers at 0.02: %v", asus.Buckets)
	}
	s := sp.Scale(0.5)
	prep, main := s.Stages[1].Streams[0].Objects, s.Stages[2].Streams[0]
	read, write := main.Objects, *main.Mix[1].Objects
	if strings.Join(prep.Buckets, ",") != "sp1,sp2" || strings.Join(read.Buckets, ",") != "sp1" || strings.Join(write.Buckets, ",") != "sp2" {
		t.Errorf("at 0.5: prepare %v, reads %v, writes %v; want sp1,sp2 then sp1 and sp2 apart", prep.Buckets, read.Buckets, write.Buckets)
	}
	if read.BucketPick.String() != "u(1,1)" || write.BucketPick.String() != "u(1,1)" {
		t.Errorf("picks %s and %s: want the one bucket of each", read.BucketPick, write.BucketPick)
	}
	if errs := s.Validate(); len(errs) != 0 {
		t.Errorf("the scaled spec is not valid: %v", errs)
	}
	if b := sp.Stages[0].Streams[0].Objects.Buckets; len(b) != 431 {
		t.Errorf("the original changed: %d buckets", len(b))
	}
}

// TestCapRuntime: a trial run caps every main stream's runtime (its ramps
// shrink with it), bounds a stream of ops alone by it too, and shortens
// delays; prepare is left whole.
func TestCapRuntime(t *testing.T) {
	sp := decodeOK(t, "c.xml", cosbench(`
    <workstage name="prepare"><work type="prepare" workers="4" config="containers=r(1,1);objects=r(1,1000);sizes=c(1)KB" /></workstage>
    <workstage name="main" closuredelay="60"><work name="timed" workers="4" rampup="30" runtime="240" rampdown="30">
      <operation type="read" config="containers=c(1);objects=u(1,1000)" /></work>
      <work name="counted" workers="4" totalOps="1000000">
      <operation type="read" config="containers=c(1);objects=u(1,1000)" /></work></workstage>`))
	c := sp.CapRuntime(10 * time.Second)
	timed, counted := c.Stages[1].Streams[0], c.Stages[1].Streams[1]
	if timed.Bounds.Duration != 10*time.Second || timed.Rampup != time.Second || timed.Rampdown != time.Second {
		t.Errorf("timed work: %v with ramps %v and %v; want 10s, 1s and 1s", timed.Bounds.Duration, timed.Rampup, timed.Rampdown)
	}
	if counted.Bounds.Duration != 10*time.Second || counted.Bounds.Ops != 1000000 {
		t.Errorf("counted work: %+v", counted.Bounds)
	}
	if d := c.Stages[2].Delay; d != 10*time.Second || c.RuntimeCap != 10*time.Second {
		t.Errorf("closuredelay %v, cap %v", d, c.RuntimeCap)
	}
	if p := c.Stages[0].Streams[0]; p.Objects.Index.String() != "r(1,1000)" {
		t.Errorf("prepare changed: %s", p.Objects.Index)
	}
	if errs := c.Validate(); len(errs) != 0 {
		t.Errorf("the capped spec is not valid: %v", errs)
	}
}
