package loadgen_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/objbench/objbench/faultserver"
	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/workload"
)

// waitRequests waits until srv has served n requests.
func waitRequests(t *testing.T, srv *faultserver.Server, n int64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, total := srv.Counts(); total >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not serve %d requests within 30 s", n)
		}
		time.Sleep(5 * time.Millisecond) // polling a condition
	}
}

// The store goes away for a second in the middle of an 8-worker run: the
// workers back off instead of failing thousands of ops, and the step
// records the outage as one period, from the first failure to the first
// success after the store came back, with the ops it lost.
func TestOutageIsAPeriodNotThousandsOfErrors(t *testing.T) {
	srv, st := startFault(t, faultserver.Config{})
	addr := srv.Endpoint()[len("http://"):]
	sp := workload.Spec{Stages: []workload.Stage{{Name: "main", Kind: result.KindMain, Streams: []workload.Stream{{
		Name: "p", Mix: []workload.OpWeight{{Op: "put", Weight: 1}}, Concurrency: []int{8},
		Bounds: workload.Bounds{Duration: 4 * time.Second}, Objects: workload.KeySpace{Prefix: "p/"}, Size: 1024}}}}}
	cfg := config(t, st, sp)
	cfg.NoCleanup = true
	type ran struct {
		out *loadgen.Outcome
		err error
	}
	done := make(chan ran, 1)
	go func() {
		out, err := loadgen.Run(context.Background(), cfg)
		done <- ran{out, err}
	}()
	waitRequests(t, srv, 200)
	down := time.Now()
	if err := srv.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // the outage: the stimulus, not synchronisation
	up := time.Now()
	again, err := faultserver.Start(context.Background(), faultserver.Config{Listen: addr, AccessKey: "AKUNAVAIL", SecretKey: "unavailable-secret"})
	if err != nil {
		t.Fatalf("restart on %s: %v", addr, err)
	}
	t.Cleanup(func() { _ = again.Close(context.Background()) })
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	step := r.out.Steps[0]
	put := total(t, step, "PUT")
	errs := put.Ops - put.OK
	unreachable := int64(0)
	for class, n := range put.Errors {
		if class == storage.ClassConnRef || class == storage.ClassConnRst || class == storage.ClassConn {
			unreachable += n
		}
	}
	t.Logf("PUT: %d ops, %d ok, errors %v; outages %+v", put.Ops, put.OK, put.Errors, step.Streams[0].Outages)
	// Each worker waits at least half of 10 ms, 20 ms, ... 1 s: it fails at
	// most 8 times in the first 0.64 s and twice a second after.
	if limit := 8 * int64(9+2*up.Sub(down).Seconds()); errs > limit || errs == 0 {
		t.Errorf("%d failed ops over a %v outage with 8 workers: want a few tens (at most %d)", errs, up.Sub(down), limit)
	}
	outs := step.Streams[0].Outages
	if len(outs) != 1 {
		t.Fatalf("want one outage, got %+v", outs)
	}
	o := outs[0]
	start := step.Start.Add(time.Duration(o.Start * float64(time.Second)))
	end := step.Start.Add(time.Duration(o.End * float64(time.Second)))
	// Every refused connect falls in the outage; a request the closing
	// server cut (a reset) before the first refusal opened it does not.
	if refused := put.Errors[storage.ClassConnRef]; o.Open || o.OpsLost < refused || o.OpsLost > unreachable || o.OpsLost == 0 {
		t.Errorf("outage %+v: want closed, with the %d refused ops, at most the %d that failed to reach the store", o, refused, unreachable)
	}
	if d := start.Sub(down); math.Abs(d.Seconds()) > 0.5 {
		t.Errorf("the outage began %v after the server went down", d)
	}
	if d := end.Sub(up); d < 0 || d > 1500*time.Millisecond {
		t.Errorf("the outage ended %v after the server came back: want within the longest backoff (1 s)", d)
	}
	if put.OK == 0 || !o.Open && o.End > step.Elapsed.Seconds() {
		t.Errorf("ok %d, outage end %.3f s after a step of %v", put.OK, o.End, step.Elapsed)
	}
}
