package e2e_test

import (
	"strings"
	"testing"
)

// A step of two ops by one worker has no rate: its window runs from the
// first op's end to the last one's, and neither ended inside it. The
// table says "too short to rate" with the op count, not 0.0 ops/s.
func TestTinyStepIsTooShortToRate(t *testing.T) {
	dir := t.TempDir()
	// 64 MiB ops take longer than a tick (10 ms), so the window is not
	// empty (an empty one falls back to the whole step, which has a rate).
	r := objbench(t, dir, nil, "put", "--ops", "2", "-c", "1", "--size", "64MiB", "-q").mustSucceed(t)
	var row string
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, "main ") {
			row = l
		}
	}
	if f := strings.Fields(row); len(f) < 9 || strings.Join(f[3:9], " ") != "too short to rate (2 ops)" {
		t.Errorf("main row %q, want OPS/S and THROUGHPUT to read 'too short to rate (2 ops)':\n%s", row, r.stdout)
	}
	if !strings.Contains(r.stdout, "too short to rate: no successful op ended inside the step's window") || strings.Contains(row, " 0.0 ") {
		t.Errorf("no note under the table, or a rate of 0:\n%s", r.stdout)
	}
}
