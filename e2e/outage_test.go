package e2e_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/result"
)

// MinIO killed for 4 s in the middle of an 8-worker GET run: the workers
// back off, so the step fails a few tens of ops, not tens of thousands;
// the result and the table show the outage as one period with the ops it
// lost; the run still ends, with its result written.
func TestMinIOKilledMidRunIsAnOutage(t *testing.T) {
	m, _, flags, env := minioEnv(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	args := append([]string{"get", "--concurrency", "8", "--duration", "14s", "--objects", "16", "--size", "4KiB", "--out", out}, flags...)
	r := startObjbench(t, dir, env, args...)
	r.waitFor(t, "main: step 1/1")
	time.Sleep(time.Second) // a second of load first: the stimulus's timing, not synchronisation
	down := time.Now()
	m.Kill()
	time.Sleep(4 * time.Second) // the outage
	if err := m.Restart(); err != nil {
		t.Fatalf("restart MinIO: %v", err)
	}
	up := time.Now()
	ended := r.wait(t)
	ended.sane(t, "get through an outage", 0, 3*time.Minute)
	res := readResult(t, out)
	var main *result.Step
	for i := range res.Steps {
		if res.Steps[i].Kind == result.KindMain {
			main = &res.Steps[i]
		}
	}
	if main == nil {
		t.Fatal("no main step")
	}
	ops, ok, _ := mainOps(res, "GET")
	t.Logf("GET %d ops, %d ok; outages %+v; MinIO down for %v", ops, ok, main.Streams[0].Outages, up.Sub(down))
	if errs := ops - ok; errs > maxLost(8, up.Sub(down)) || errs == 0 {
		t.Errorf("%d failed GETs over a %v outage with 8 workers: want a few tens (at most %d)", errs, up.Sub(down).Round(time.Millisecond),
			maxLost(8, up.Sub(down)))
	}
	outs := main.Streams[0].Outages
	if len(outs) != 1 {
		t.Fatalf("want one outage, got %+v", outs)
	}
	o := outs[0]
	if o.Open || o.OpsLost == 0 || o.OpsLost > ops-ok || o.Duration() < 4 || o.Duration() > up.Sub(down).Seconds()+1.5 {
		t.Errorf("outage %+v over a %v outage and %d failed ops", o, up.Sub(down), ops-ok)
	}
	for _, text := range []string{ended.stdout, objbench(t, dir, nil, "report", out).mustSucceed(t).stdout} {
		if !strings.Contains(text, "store unreachable from") || !strings.Contains(text, "ops lost") {
			t.Errorf("the table does not show the outage:\n%s", text)
		}
	}
	// The timeline draws it where it began, before that second's row.
	tl := objbench(t, dir, nil, "report", out, "--timeline").mustSucceed(t).stdout
	if !strings.Contains(tl, "# store unreachable from") {
		t.Errorf("the timeline does not show the outage:\n%s", tl)
	}
}

// maxLost bounds the ops workers backing off lose in an outage: each waits
// at least half of 10 ms, 20 ms, ... 1 s, 1 s, ..., so fails at most 8
// times in its first 0.64 s and twice a second after (one more for the op
// in flight when the store went away).
func maxLost(workers int, outage time.Duration) int64 {
	return int64(workers) * int64(9+2*outage.Seconds())
}
