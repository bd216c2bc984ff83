package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/result"
)

// stepOf is a step of kind: two workers doing op for dur, each op taking
// lat.
func stepOf(kind string, op metrics.Op, start time.Time, dur, lat time.Duration) result.Step {
	s := metrics.NewSeries(start)
	for w := range 2 {
		rec := s.NewRecorder()
		for now := start.Add(time.Duration(w) * time.Millisecond); !now.Add(lat).After(start.Add(dur)); now = now.Add(lat) {
			rec.Record(&metrics.Result{Op: op, Start: now, End: now.Add(lat), Bytes: 4096})
		}
	}
	secs, win := s.Finish()
	return result.Step{Stage: kind, Kind: kind, Start: start, Elapsed: dur,
		Streams: []result.Stream{{Name: kind, Concurrency: 2, Seconds: secs, Window: win}}}
}

// writeStepsRun writes a run of a prepare (PUTs of prepLat), a main step
// (10 s of GETs of 2 ms) and a cleanup (DELETEs of prepLat).
func writeStepsRun(t *testing.T, dir, name string, prepLat time.Duration) string {
	t.Helper()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := &result.Run{RunInfo: result.RunInfo{Schema: result.Version, RunID: name}, Steps: []result.Step{
		stepOf(result.KindPrepare, metrics.OpPut, t0, time.Second, prepLat),
		stepOf(result.KindMain, metrics.OpGet, t0.Add(time.Second), 10*time.Second, 2*time.Millisecond),
		stepOf(result.KindCleanup, metrics.OpDelete, t0.Add(11*time.Second), time.Second, prepLat)}}
	path := filepath.Join(dir, name)
	if err := result.Write(path, r); err != nil {
		t.Fatal(err)
	}
	return path
}

// compare sets the main steps side by side unless asked for every step,
// and --fail-if judges the main steps only: a cleanup ten times slower
// in one run neither shows by default nor trips a latency gate.
func TestCompareMainStepsByDefault(t *testing.T) {
	dir := t.TempDir()
	base := writeStepsRun(t, dir, "base.json", 2*time.Millisecond)
	other := writeStepsRun(t, dir, "other.json", 20*time.Millisecond)
	gate := []string{"--fail-if", "p99>+10%", "--fail-if", "throughput<-5%"}
	code, out, errs := execute(t, nil, append(append([]string{"compare"}, gate...), base, other)...)
	if code != 0 || strings.Contains(out, "prepare") || strings.Contains(out, "cleanup") || !strings.Contains(out, "main ") {
		t.Errorf("default: exit %d, want 0 and the main step alone:\n%s%s", code, out, errs)
	}
	code, out, errs = execute(t, nil, append(append([]string{"compare", "--all-steps"}, gate...), base, other)...)
	if code != 0 || !strings.Contains(out, "prepare ") || !strings.Contains(out, "cleanup ") || !strings.Contains(out, "+900.") {
		t.Errorf("--all-steps: exit %d, want 0 with prepare and cleanup shown (+900%% latency) and no gate tripped:\n%s%s", code, out, errs)
	}
}
