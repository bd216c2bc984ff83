package live_test

import (
	"context"
	"encoding/json"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/payload"
	"github.com/objbench/objbench/report/live"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage/mem"
	"github.com/objbench/objbench/workload"
)

// wait bounds each wait for the server; a second of records takes one.
const wait = 20 * time.Second

// TestViewServesARun runs a real 3.5 s GET workload while a client follows
// the event stream and scrapes /metrics: the events come once a second in
// order with the charts, the counters grow, and after the run the
// histograms count exactly the ops the result records. Then the server
// shuts down.
func TestViewServesARun(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	v := live.New(live.Info{RunID: "r1", Target: "mem"})
	v.Start(ln)
	closed := false
	t.Cleanup(func() {
		if !closed {
			_ = v.Close(context.Background())
		}
	})
	sse := testenv.OpenSSE(t, base+"/events")
	if ev := sse.Next(t, wait); ev.Type != "state" {
		t.Fatalf("first event %q, want the state a new page starts from", ev.Type)
	}

	cfg := runConfig(t, v)
	type ran struct {
		out *loadgen.Outcome
		err error
	}
	done := make(chan ran, 1)
	go func() { out, err := loadgen.Run(context.Background(), cfg); done <- ran{out, err} }()

	// Two seconds of the main step, in order, with charts and growing counters.
	var mainSecs []live.Event
	var scraped []float64
	drawn := false // charts come with the latest event, unless drawing takes long (see drawShare)
	for n := 0; len(mainSecs) < 2; n++ {
		if n > 50 {
			t.Fatal("50 events without two seconds of the main step")
		}
		ev := sse.Next(t, wait)
		if ev.Type != "second" {
			t.Fatalf("event %q during the run, want second", ev.Type)
		}
		var e live.Event
		if err := json.Unmarshal([]byte(ev.Data), &e); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(e.Label, "main") {
			continue
		}
		if len(mainSecs) > 0 && (e.T <= mainSecs[len(mainSecs)-1].T || e.RunS <= mainSecs[len(mainSecs)-1].RunS) {
			t.Errorf("second event %+v after %+v: want increasing seconds", e, mainSecs[len(mainSecs)-1])
		}
		if e.Ops == 0 || e.P99 <= 0 {
			t.Errorf("second %d: %d ops, p99 %v ms: want ops and a latency", e.T, e.Ops, e.P99)
		}
		drawn = drawn || strings.Contains(e.Charts, "Throughput per op")
		mainSecs = append(mainSecs, e)
		m := testenv.Metric(testenv.Scrape(t, base+"/metrics"), "objbench_ops_total", "stage", "main", "op", "GET")
		if m == nil {
			t.Fatalf("/metrics has no objbench_ops_total for main's gets while they run: %v", testenv.ScrapeOpenMetrics(t, base+"/metrics"))
		}
		scraped = append(scraped, m.GetCounter().GetValue())
	}
	if !drawn {
		t.Error("no second of the main step came with the time charts")
	}
	if scraped[1] <= scraped[0] {
		t.Errorf("objbench_ops_total went %v -> %v between two seconds of the run, want growth", scraped[0], scraped[1])
	}

	var r ran
	select {
	case r = <-done:
	case <-time.After(time.Minute):
		t.Fatal("the run did not end within a minute")
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	v.Finish("completed")
	var end live.Event
	for n := 0; ; n++ {
		ev := sse.Next(t, wait)
		if ev.Type == "end" {
			if err := json.Unmarshal([]byte(ev.Data), &end); err != nil {
				t.Fatal(err)
			}
			break
		}
		if n > 50 {
			t.Fatal("no end event after the run")
		}
	}

	// The final state, read while this page is still connected.
	mfs := testenv.Scrape(t, base+"/metrics")
	for _, name := range []string{"go_goroutines", "process_open_fds", "process_resident_memory_bytes"} {
		if m := testenv.Metric(mfs, name); m == nil || m.GetGauge().GetValue() <= 0 {
			t.Errorf("/metrics has no %s of the process (a soak test samples it): %v", name, m)
		}
	}
	var ops, failed int64
	for i, step := range r.out.Steps {
		for _, st := range step.Streams {
			for _, tot := range st.Totals {
				lv := []string{"stage", step.Stage, "step", strconv.Itoa(i), "op", tot.Op}
				hist := testenv.Metric(mfs, "objbench_latency_seconds", lv...)
				cnt := testenv.Metric(mfs, "objbench_ops_total", lv...)
				if hist == nil || cnt == nil {
					t.Fatalf("/metrics lacks %v", lv)
				}
				ok := tot.OK
				if got := hist.GetHistogram().GetSampleCount(); got != uint64(ok) {
					t.Errorf("%v: histogram _count %d, the result has %d successful ops", lv, got, ok)
				}
				if got := cnt.GetCounter().GetValue(); got != float64(tot.Ops) {
					t.Errorf("%v: ops_total %v, the result has %d", lv, got, tot.Ops)
				}
				if b := hist.GetHistogram().GetBucket(); len(b) == 0 || b[len(b)-1].GetCumulativeCount() != uint64(ok) {
					t.Errorf("%v: the buckets do not reach every op below a minute: %v", lv, b)
				}
				ops += tot.Ops
				failed += tot.Ops - tot.OK
			}
		}
	}
	if end.Outcome != "completed" || end.OpsTotal != ops || end.ErrorsTotal != failed || !strings.Contains(end.Charts, "<svg") {
		t.Errorf("end event: outcome %q, %d ops, %d errors, charts %.40q; want completed, %d, %d, the charts",
			end.Outcome, end.OpsTotal, end.ErrorsTotal, end.Charts, ops, failed)
	}
	if om := testenv.ScrapeOpenMetrics(t, base+"/metrics"); !strings.Contains(om, `objbench_latency_seconds_bucket{op="GET",stage="main",step="1"`) {
		t.Errorf("OpenMetrics exposition lacks main's latency buckets:\n%s", om)
	}

	sse.Close()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := v.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	closed = true
	if c, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		c.Close()
		t.Error("the server still accepts connections after Close")
	}
}

// TestViewEndsForLatePages: a page that connects after the run gets the
// final event and nothing else, and Close does not wait for a page that
// stays connected beyond Linger.
func TestViewEndsForLatePages(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	v := live.New(live.Info{RunID: "r2", Linger: 200 * time.Millisecond})
	v.Start(ln)
	early := testenv.OpenSSE(t, "http://"+ln.Addr().String()+"/events")
	if ev := early.Next(t, wait); ev.Type != "state" {
		t.Fatalf("first event %q, want state", ev.Type)
	}
	v.Finish("interrupted")
	if ev := early.Next(t, wait); ev.Type != "end" || !strings.Contains(ev.Data, `"outcome":"interrupted"`) {
		t.Fatalf("after Finish: %q %s, want the end event", ev.Type, ev.Data)
	}
	late := testenv.OpenSSE(t, "http://"+ln.Addr().String()+"/events")
	if ev := late.Next(t, wait); ev.Type != "end" {
		t.Fatalf("a page connecting after the end got %q, want end", ev.Type)
	}
	if !late.Ended(wait) {
		t.Error("the stream of a page connecting after the end stays open")
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := v.Close(ctx); err != nil { // the early page never disconnects: Linger bounds the wait
		t.Fatal(err)
	}
	if !early.Ended(wait) {
		t.Error("the early page's stream stays open after Close")
	}
}

func runConfig(t *testing.T, v *live.View) loadgen.Config {
	t.Helper()
	blk, err := payload.NewBlock(1<<20, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	main := workload.Stream{Name: "g", Mix: []workload.OpWeight{{Op: "get", Weight: 1}}, Concurrency: []int{2},
		Bounds: workload.Bounds{Duration: 3500 * time.Millisecond}, Objects: workload.KeySpace{Prefix: "g/", Count: 20}, Size: 4096}
	prep := main
	prep.Mix = nil
	sp := workload.Spec{Stages: []workload.Stage{
		{Name: "prepare", Kind: result.KindPrepare, Streams: []workload.Stream{prep}},
		{Name: "main", Kind: result.KindMain, Streams: []workload.Stream{main}},
		{Name: "cleanup", Kind: result.KindCleanup},
	}}
	return loadgen.Config{Store: mem.New(), Spec: sp, Namespace: "objbench/live/", Block: blk, Grace: 5 * time.Second,
		OnStep: v.Step, StepStarted: v.StepStarted, OnSecond: v.Second}
}
