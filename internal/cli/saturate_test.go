package cli_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/faultserver"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/saturate"
)

// Against a server of known capacity (4 workers x 40 ms per GET = 100/s)
// the knee is the last rate below it: 25/s and 50/s meet p99<200ms, 100/s
// sits at capacity (timer jitter drops slots or queues), 200/s cannot. The
// objective is five times the service time, so a loaded machine's
// scheduling delays (tens of ms under -race beside other test packages) do
// not move the knee, while a queue past capacity does.
func TestSaturateFindsTheKnee(t *testing.T) {
	res, stdout := saturateKnownServer(t, "--max-workers", "4", "--start-rate", "25/s", "--factor", "2", "--max-rate", "800/s",
		// 20%: a loaded or race-instrumented client is itself late for a few
		// slots at half capacity; at twice capacity half the slots drop.
		"--max-error-ratio", "0.2")
	if res.Knee == nil || (res.Knee.Rate != 50 && res.Knee.Rate != 100) {
		t.Fatalf("knee %+v, want 50/s or 100/s (capacity 100/s)", res.Knee)
	}
	last := res.Points[len(res.Points)-1]
	if last.Met || last.Rate > 200 {
		t.Errorf("the search went on to %v/s (met %v); 200/s is twice the capacity", last.Rate, last.Met)
	}
	if !strings.Contains(stdout, "knee: ") || !strings.Contains(stdout, "OFFERED/s") {
		t.Errorf("no curve or knee in:\n%s", stdout)
	}
}

// By concurrency, closed loop: 40 ms per GET serves 25/s per worker, so
// throughput doubles with each doubling of workers up to the maximum,
// where the search stops without having found a knee. A closed loop
// queues nothing, so the objective is a loose p99<1s: a 1 s step of one
// worker holds 25 GETs, its p99 is its slowest, and a loaded machine
// (the race run beside other packages) once made that 231 ms.
func TestSaturateByConcurrency(t *testing.T) {
	res, stdout := saturateKnownServer(t, "--by", "concurrency", "--max-concurrency", "4", "--factor", "2", "--slo", "p99<1s")
	if len(res.Points) != 3 || res.Knee != nil || res.Best == nil || res.Best.Rate != 4 || !strings.Contains(stdout, "WORKERS") ||
		!strings.Contains(stdout, "knee: not reached (stopped: reached the maximum rate)") {
		t.Fatalf("points %+v, knee %+v, best %+v: want 1, 2, 4 workers, all meeting the objective, no knee", res.Points, res.Knee, res.Best)
	}
	for _, p := range res.Points {
		if p.Achieved < 0.8*25*p.Rate || p.Achieved > 25*p.Rate*1.05 {
			t.Errorf("%v workers achieved %.0f/s, want about %v/s", p.Rate, p.Achieved, 25*p.Rate)
		}
	}
}

// saturateKnownServer runs objbench saturate get with args against a
// server that takes 40 ms per request, with a p99<200ms objective and 1 s
// steps, and returns the curve from its result file and what it printed.
func saturateKnownServer(t *testing.T, args ...string) (saturate.Result, string) {
	t.Helper()
	ctx := context.Background()
	srv, err := faultserver.Start(ctx, faultserver.Config{Delay: faultserver.Delay{Base: 40 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(ctx) })
	out := filepath.Join(t.TempDir(), "curve.json")
	t.Setenv("AWS_ACCESS_KEY_ID", "a") // the SDK's credential chain reads the process environment
	t.Setenv("AWS_SECRET_ACCESS_KEY", "b")
	code, stdout, stderr := execute(t, nil, append([]string{"saturate", "get", "--endpoint-url", srv.Endpoint(), "--bucket", srv.Bucket(),
		"--size", "1KiB", "--objects", "8", "--step", "1s", "--slo", "p99<200ms", "--max-time", "20s", "--out", out}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	t.Log("\n" + stdout)
	run, err := result.Read(out)
	if err != nil || run.Saturation == nil {
		t.Fatalf("--out %s is not a result file of the search: %v", out, err)
	}
	s := run.Saturation
	return saturate.Result{Points: s.Points, Best: s.Best, Knee: s.Knee, StoppedBy: s.StoppedBy}, stdout
}

// --out writes a result file of the whole search that objbench report
// reads (every step's table, the curve, the knee); -q prints the curve
// and the knee only.
func TestSaturateOutIsAResultReportReads(t *testing.T) {
	ctx := context.Background()
	srv, err := faultserver.Start(ctx, faultserver.Config{Delay: faultserver.Delay{Base: 40 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(ctx) })
	t.Setenv("AWS_ACCESS_KEY_ID", "a") // the SDK's credential chain reads the process environment
	t.Setenv("AWS_SECRET_ACCESS_KEY", "b")
	out := filepath.Join(t.TempDir(), "knee.json")
	code, stdout, stderr := execute(t, nil, "saturate", "get", "--endpoint-url", srv.Endpoint(), "--bucket", srv.Bucket(),
		"--size", "1KiB", "--objects", "4", "--step", "1s", "--start-rate", "10/s", "--factor", "2", "--max-rate", "20/s",
		"--slo", "p99<1s", "--max-error-ratio", "0.5", "--max-workers", "4", "-q", "--out", out)
	if code != 0 || stderr != "" || !strings.HasPrefix(stdout, " OFFERED/s ACHIEVED/s") || !strings.Contains(stdout, "knee: ") {
		t.Fatalf("-q: exit %d, want the curve and the knee alone on stdout and nothing on stderr:\n%s\n%s", code, stdout, stderr)
	}
	code, table, errs := execute(t, nil, "report", out)
	if code != 0 {
		t.Fatalf("report %s: exit %d: %s", out, code, errs)
	}
	for _, want := range []string{"main [rate 10/s]", "main [rate 20/s]", "prepare [rate 10/s]",
		"The knee search (objbench saturate)", "MEETS p99<1s, errors+dropped <= 50.00%", "knee: "} {
		if !strings.Contains(table, want) {
			t.Errorf("report lacks %q:\n%s", want, table)
		}
	}
}
