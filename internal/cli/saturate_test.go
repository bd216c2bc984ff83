package cli_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/faultserver"
	"github.com/objbench/objbench/saturate"
)

// Against a server of known capacity (4 workers x 20 ms per GET = 200/s)
// the knee is the last rate below it: 50/s and 100/s meet p99<60ms, 200/s
// sits at capacity (timer jitter drops slots or queues), 400/s cannot.
func TestSaturateFindsTheKnee(t *testing.T) {
	ctx := context.Background()
	srv, err := faultserver.Start(ctx, faultserver.Config{Delay: faultserver.Delay{Base: 20 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(ctx) })
	out := filepath.Join(t.TempDir(), "curve.json")
	t.Setenv("AWS_ACCESS_KEY_ID", "a") // the SDK's credential chain reads the process environment
	t.Setenv("AWS_SECRET_ACCESS_KEY", "b")
	code, stdout, stderr := execute(t, nil,
		"saturate", "get", "--endpoint-url", srv.Endpoint(), "--bucket", srv.Bucket(), "--max-workers", "4", "--size", "1KiB",
		"--objects", "8", "--start-rate", "50/s", "--factor", "2", "--max-rate", "1600/s", "--step", "1s", "--slo", "p99<60ms",
		// 20%: a loaded or race-instrumented client is itself late for a few
		// slots at half capacity; at twice capacity half the slots drop.
		"--max-error-ratio", "0.2", "--max-time", "20s", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	t.Log("\n" + stdout)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var res saturate.Result
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if res.Knee == nil || (res.Knee.Rate != 100 && res.Knee.Rate != 200) {
		t.Fatalf("knee %+v, want 100/s or 200/s (capacity 200/s)", res.Knee)
	}
	last := res.Points[len(res.Points)-1]
	if last.Met || last.Rate > 400 {
		t.Errorf("the search went on to %v/s (met %v); 400/s is twice the capacity", last.Rate, last.Met)
	}
	if !strings.Contains(stdout, "knee: ") || !strings.Contains(stdout, "OFFERED/s") {
		t.Errorf("no curve or knee in:\n%s", stdout)
	}
}

// By concurrency, closed loop: 20 ms per GET serves 50/s per worker, so
// throughput doubles with each doubling of workers up to the maximum.
func TestSaturateByConcurrency(t *testing.T) {
	ctx := context.Background()
	srv, err := faultserver.Start(ctx, faultserver.Config{Delay: faultserver.Delay{Base: 20 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(ctx) })
	out := filepath.Join(t.TempDir(), "curve.json")
	t.Setenv("AWS_ACCESS_KEY_ID", "a")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "b")
	code, stdout, stderr := execute(t, nil, "saturate", "get", "--by", "concurrency", "--endpoint-url", srv.Endpoint(),
		"--bucket", srv.Bucket(), "--max-concurrency", "4", "--factor", "2", "--size", "1KiB", "--objects", "8",
		"--step", "1s", "--slo", "p99<60ms", "--max-time", "20s", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	t.Log("\n" + stdout)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var res saturate.Result
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 3 || res.Knee == nil || res.Knee.Rate != 4 || !strings.Contains(stdout, "WORKERS") {
		t.Fatalf("points %+v, knee %+v: want 1, 2, 4 workers, all meeting the objective", res.Points, res.Knee)
	}
	for _, p := range res.Points {
		if p.Achieved < 0.8*50*p.Rate || p.Achieved > 50*p.Rate*1.05 {
			t.Errorf("%v workers achieved %.0f/s, want about %v/s", p.Rate, p.Achieved, 50*p.Rate)
		}
	}
}
