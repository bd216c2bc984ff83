package e2e_test

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMonitorPrintsRowsAndCSV(t *testing.T) {
	dir := t.TempDir()
	r := objbench(t, dir, nil, "monitor", "--count", "2", "--interval", "200ms").mustSucceed(t)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 4 || !strings.Contains(lines[1], "usr  sys  idl  wai  stl  irq sirq") {
		t.Errorf("want two header lines and two rows, got:\n%s", r.stdout)
	}
	file := filepath.Join(dir, "m.csv")
	for _, c := range []struct {
		name string
		args []string
		read func() string
	}{
		{"csv on stdout", []string{"--csv", "-"}, nil},
		{"csv file beside the table", []string{"--csv", file}, func() string { b, _ := os.ReadFile(file); return string(b) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := objbench(t, dir, nil, append([]string{"monitor", "--count", "2", "--interval", "200ms"}, c.args...)...).mustSucceed(t)
			text := r.stdout
			if c.read != nil {
				text = c.read()
			}
			recs, err := csv.NewReader(strings.NewReader(text)).ReadAll()
			if err != nil || len(recs) != 3 || recs[0][0] != "time" || recs[0][4] != "usr" {
				t.Fatalf("want a header and two CSV rows (%v):\n%s", err, text)
			}
		})
	}
}
