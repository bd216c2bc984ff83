package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/objbench/objbench/result"
)

func TestRateRunPrintsResponseTime(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := execute(t, nil, "get", "--rate", "100/s", "--ops", "50", "--target", "file://"+dir,
		"--size", "1KiB", "--objects", "10", "--out", out, "--csv", out+".csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"Response time (from intended start", "DROPPED", " GET "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in:\n%s", want, stdout)
		}
	}
	csv, err := os.ReadFile(out + ".csv")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(csv), "response_p50_ms,response_p99_ms,dropped") {
		t.Errorf("CSV lacks the open-loop columns:\n%s", csv)
	}
	doc, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), `"per_s": 100`) {
		t.Error("the result file lacks the rate")
	}
	// The per-second records are packed (version 5): read them back.
	run, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	var responses int64
	for _, st := range run.Steps {
		for _, s := range st.Streams {
			for _, sec := range s.Seconds {
				for _, o := range sec.Ops {
					if o.Response == "" {
						continue
					}
					h, err := result.DecodeHistogram(o.Response)
					if err != nil {
						t.Fatal(err)
					}
					responses += h.TotalCount()
				}
			}
		}
	}
	if responses < 50 {
		t.Errorf("the result file's seconds hold %d response times, want one per GET (50)", responses)
	}
}

func TestRateListRunsAStepPerRate(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := execute(t, nil, "stat", "--rate", "200/s,400/s", "--arrival", "poisson", "--max-workers", "4",
		"--ops", "40", "--target", "file://"+t.TempDir(), "--size", "1KiB", "--objects", "10", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if n := strings.Count(stdout, "main (conc 4)"); n != 2 {
		t.Errorf("%d main steps at 4 workers, want 2 (one per rate):\n%s", n, stdout)
	}
	if !strings.Contains(stderr, "rate=400/s poisson") {
		t.Errorf("the step notes do not name the rate:\n%s", stderr)
	}
}

func TestBadRateFlagsExitTwo(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"get", "--rate", "fast"}, `"fast"`},
		{[]string{"get", "--rate", "100/h"}, `"h"`},
		{[]string{"get", "--rate", "10/s", "--arrival", "bursty"}, `"bursty"`},
		{[]string{"get", "--rate", "10/s..100/s"}, "ramp needs its length"},
		{[]string{"get", "--max-workers", "4"}, "needs --rate"},
	} {
		code, _, errs := execute(t, nil, append(c.args, "--target", "file://"+t.TempDir())...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, want 2 naming %s: %s", c.args, code, c.want, errs)
		}
	}
}
