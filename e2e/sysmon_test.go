package e2e_test

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/objbench/objbench/sysmon"
)

// A run of tiny STATs at high concurrency against the embedded server
// burns both cores of this machine in one process: the verdict must call
// it client-bound and say the server shares the process.
func TestTinyObjectRunOnEmbeddedServerIsClientBound(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	r := objbench(t, dir, nil, "stat", "--size", "1B", "--concurrency", "32", "--duration", "4s", "--out", out).mustSucceed(t)
	if !strings.Contains(r.stdout, "verdict: client-bound: host CPU ") || !strings.Contains(r.stdout, "objbench and its embedded server") {
		t.Errorf("no client-bound verdict after the table:\n%s", r.stdout)
	}
	res := readResult(t, out)
	if res.System == nil || len(res.System.Verdicts) != 1 {
		t.Fatalf("result file has no verdict: %+v", res.System)
	}
	v := res.System.Verdicts[0]
	if res.Steps[v.Step].Kind != "main" || v.Findings[0].Kind != sysmon.KindClientBound {
		t.Errorf("verdict on step %d (%s): %+v; want client-bound on the main step", v.Step, res.Steps[v.Step].Kind, v.Findings)
	}
	if v.Findings[0].Numbers["objbench_cpu_pct"] <= 0 || v.Findings[0].Numbers["window_s"] < 3 {
		t.Errorf("numbers behind the verdict: %v", v.Findings[0].Numbers)
	}
	var mainSecs []int64
	for _, s := range res.System.Samples {
		if s.Step == v.Step {
			mainSecs = append(mainSecs, s.T)
			if s.Proc == nil || s.Proc.Threads == 0 || s.Proc.Conns == 0 {
				t.Errorf("second %d: no process figures (threads, connections to the server): %+v", s.T, s.Proc)
			}
		}
	}
	if len(mainSecs) < 4 || mainSecs[0] != 0 || mainSecs[3] != 3 {
		t.Errorf("main step seconds %v; want 0,1,2,3,... like its op records", mainSecs)
	}
	if !strings.Contains(strings.Join(res.System.Interfaces, ","), "lo") {
		t.Errorf("the target is on loopback, but lo is not counted: %v", res.System.Interfaces)
	}
	tl := objbench(t, dir, nil, "report", out, "--timeline").mustSucceed(t)
	for _, want := range []string{"usr  sys  idl  wai  stl  irq sirq|  read  writ|  recv  send|    in   out|   int   csw", "- paging/s -",
		"ops/s   MiB/s  p99ms", "# step 1: main conc 32", "verdict: client-bound"} {
		if !strings.Contains(tl.stdout, want) {
			t.Errorf("timeline lacks %q:\n%s", want, tl.stdout)
		}
	}
	if strings.Contains(tl.stdout, "\x1b[") {
		t.Errorf("colours written to a pipe:\n%q", tl.stdout)
	}
}

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
