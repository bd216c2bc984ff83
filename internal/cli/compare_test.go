package cli_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/result"
)

// writeRun writes a result file of a 10 s closed-loop GET step whose two
// workers' ops take lat, lat+10%, lat+20%, ... in turn.
func writeRun(t *testing.T, dir, name string, lat time.Duration) string {
	t.Helper()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := metrics.NewSeries(start)
	for w := 0; w < 2; w++ {
		rec := s.NewRecorder()
		now := start.Add(time.Duration(w) * time.Millisecond)
		for i := 0; ; i++ {
			d := lat + lat*time.Duration(i%5)/10
			if now.Add(d).After(start.Add(10 * time.Second)) {
				break
			}
			rec.Record(&metrics.Result{Op: metrics.OpGet, Start: now, End: now.Add(d), Bytes: 4096})
			now = now.Add(d)
		}
	}
	secs, win := s.Finish()
	r := &result.Run{RunInfo: result.RunInfo{Schema: result.Version, RunID: name}, Steps: []result.Step{{Stage: "main",
		Kind: result.KindMain, Start: start, Elapsed: 10 * time.Second,
		Streams: []result.Stream{{Name: "main", Concurrency: 2, Seconds: secs, Window: win}}}}}
	path := filepath.Join(dir, name)
	if err := result.Write(path, r); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCompareFailIf(t *testing.T) {
	dir := t.TempDir()
	base := writeRun(t, dir, "base.json", 2*time.Millisecond)
	slow := writeRun(t, dir, "slow.json", 3*time.Millisecond)
	// Sides of four runs: a comma list, and a directory.
	slowDir := filepath.Join(dir, "slow")
	bases, bases2 := base, base
	for i := range 3 {
		bases += "," + writeRun(t, dir, fmt.Sprintf("base-%d.json", i), 2*time.Millisecond)
		bases2 += "," + writeRun(t, dir, fmt.Sprintf("again-%d.json", i), 2*time.Millisecond)
	}
	for i := range 4 {
		writeRun(t, slowDir, fmt.Sprintf("slow-%d.json", i), 3*time.Millisecond)
	}
	slows := slowDir + "/"
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no thresholds", []string{base, slow}, 0, "slow.json"},
		{"within thresholds", []string{"--fail-if", "p99>+60%", "--fail-if", "throughput<-40%", base, slow}, 0, "+50.0% ?"},
		{"p99 crossed", []string{"--fail-if", "p99>+10%", base, slow}, 1, "FAIL --fail-if p99>+10%: main GET conc 2 in slow.json: p99 +50.1% (not tested: too few runs)"},
		{"p99 crossed over runs", []string{"--fail-if", "p99>+10%", bases, slows}, 1, "FAIL --fail-if p99>+10%: main GET conc 2 in slow: p99 +50.1% (significant)"},
		{"noise over runs", []string{"--fail-if", "p99>+10%", bases, bases2}, 0, "base.json +3"},
		{"throughput crossed", []string{"--fail-if", "GET:throughput<-5%", base, slow}, 1, "throughput -33."},
		{"other op only", []string{"--fail-if", "PUT:p99>+10%", base, slow}, 0, ""},
		{"improvement", []string{"--fail-if", "p99>+10%", slow, base}, 0, "-33.3% ?"},
		{"empty directory", []string{base, t.TempDir()}, 2, ""},
		{"bad expression", []string{"--fail-if", "p99 > ten", base, slow}, 2, ""},
		{"bad metric", []string{"--fail-if", "p42>+1%", base, slow}, 2, ""},
		{"one file", []string{base}, 2, ""},
		{"not a result", []string{base, filepath.Join(dir, "missing.json")}, 2, ""},
	} {
		code, out, errs := execute(t, nil, append([]string{"compare"}, c.args...)...)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d\n%s%s", c.name, code, c.code, out, errs)
		}
		if !strings.Contains(out, c.want) {
			t.Errorf("%s: output lacks %q:\n%s", c.name, c.want, out)
		}
		if c.code == 2 && strings.HasPrefix(c.name, "bad") && !strings.Contains(errs, c.args[1]) {
			t.Errorf("%s: error does not name the expression: %s", c.name, errs)
		}
	}
}

// Files written by real runs compare, and a run compared with itself shows
// no change.
func TestCompareRealRuns(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.json")
	if code, _, errs := execute(t, nil, "put", "--target", "file://"+t.TempDir(), "--ops", "300", "--size", "1KiB", "--out", a); code != 0 {
		t.Fatalf("put: exit %d: %s", code, errs)
	}
	code, out, errs := execute(t, nil, "compare", "--fail-if", "p99>+0%", "--fail-if", "ops<-0%", a, a)
	if code != 0 || !strings.Contains(out, " PUT ") || strings.Contains(out, "% *") {
		t.Errorf("exit %d (%s):\n%s", code, errs, out)
	}
}
