package e2e_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/faultserver"
)

// --repeat runs each main step again and records each run as a
// repetition; the table lists them, and compare folds them into one row
// per run: one sample of the run, so one run a side is not tested (and
// the first line says how many runs are).
func TestRepeatGivesCompareItsSamples(t *testing.T) {
	ctx := context.Background()
	srv, err := faultserver.Start(ctx, faultserver.Config{Delay: faultserver.Delay{Base: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(context.Background()) })
	env := []string{"AWS_ACCESS_KEY_ID=objbench", "AWS_SECRET_ACCESS_KEY=objbench-secret", "AWS_REGION=us-east-1"}
	dir := t.TempDir()
	for _, name := range []string{"a.json", "b.json"} {
		r := objbench(t, dir, env, "get", "--endpoint-url", srv.Endpoint(), "--bucket", srv.Bucket(), "--size", "4KiB",
			"--objects", "16", "-c", "2", "--duration", "600ms", "--repeat", "5", "-o", name).mustSucceed(t)
		for k := 1; k <= 5; k++ {
			if !strings.Contains(r.stdout, "main #"+string(rune('0'+k))) {
				t.Fatalf("the table lacks repetition %d of main:\n%s", k, r.stdout)
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "a.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Steps []struct {
			Kind       string `json:"kind"`
			Repetition int    `json:"repetition"`
		} `json:"steps"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	var reps []int
	for _, s := range res.Steps {
		if s.Kind == "main" {
			reps = append(reps, s.Repetition)
		}
	}
	if len(reps) != 5 || reps[0] != 1 || reps[4] != 5 {
		t.Fatalf("main steps' repetitions %v, want 1..5", reps)
	}
	cmp := objbench(t, dir, nil, "compare", "a.json", "b.json").mustSucceed(t).stdout
	if !strings.HasPrefix(cmp, "significance needs 4 runs a side (here 1, 1)") || strings.Contains(cmp, "% *") {
		t.Errorf("compare of one run a side does not say it needs 4 runs a side:\n%s", cmp)
	}
	rates, _, _ := strings.Cut(cmp, "Where the time goes") // the phases table after it compares repetition by repetition
	if n := strings.Count(rates, "\nmain "); n != 1 {
		t.Errorf("compare shows %d rows for main's GETs, want one row holding the 5 repetitions:\n%s", n, cmp)
	}
	if bad := objbench(t, dir, env, "get", "--endpoint-url", srv.Endpoint(), "--bucket", srv.Bucket(), "--repeat", "0"); bad.code != 2 ||
		!strings.Contains(bad.stderr, "--repeat 0") {
		t.Errorf("--repeat 0: exit %d, stderr %q; want 2 naming the value", bad.code, bad.stderr)
	}
}
