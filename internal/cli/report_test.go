package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/cli"
)

func TestReportJSONAndHDRLog(t *testing.T) {
	dir := t.TempDir()
	res := writeRun(t, dir, "r.json", 2*time.Millisecond)
	logs := filepath.Join(dir, "logs")
	code, out, errs := execute(t, nil, "report", "--json", "--hdr-log", logs, res)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var sum struct {
		Steps []struct {
			Streams []struct {
				Ops []struct {
					Op        string  `json:"op"`
					OpsPerSec float64 `json:"ops_per_s"`
				} `json:"ops"`
			} `json:"streams"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("--json output is not JSON: %v\n%s", err, out)
	}
	if ops := sum.Steps[0].Streams[0].Ops; len(ops) != 1 || ops[0].Op != "GET" || ops[0].OpsPerSec < 800 {
		t.Errorf("summary ops = %+v", ops)
	}
	b, err := os.ReadFile(filepath.Join(logs, "get.hlog"))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(b), "\n"); !strings.Contains(string(b), "#[StartTime: ") || lines < 10 {
		t.Errorf("get.hlog has %d lines:\n%s", lines, b)
	}
}

func TestReportHTML(t *testing.T) {
	dir := t.TempDir()
	res := writeRun(t, dir, "r.json", 2*time.Millisecond)
	page := filepath.Join(dir, "out", "r.html")
	if err := os.MkdirAll(filepath.Dir(page), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errs := execute(t, nil, "report", res, "--html", page)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "GET") {
		t.Errorf("report --html no longer prints the table:\n%s", out)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<!DOCTYPE html>", "<svg", "Throughput per op", "r.json"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// A path below a regular file cannot be written: exit 2, named.
	if code, _, errs := execute(t, nil, "report", res, "--html", filepath.Join(res, "r.html")); code != cli.ExitUsage || !strings.Contains(errs, "--html") {
		t.Errorf("an unwritable --html path: exit %d, stderr %q", code, errs)
	}
}

func TestRunWritesHTML(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(t.TempDir(), "r.html")
	code, _, errs := execute(t, nil, "get", "--target", "file://"+dir, "--ops", "100", "--concurrency", "2",
		"--size", "1KiB", "--objects", "10", "--out", filepath.Join(t.TempDir(), "r.json"), "--html", page)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if b, err := os.ReadFile(page); err != nil || !strings.Contains(string(b), "<svg") {
		t.Errorf("--html on a run wrote no charts (%v)", err)
	}
}

// A file that is not a result (a JSON object without a result's fields)
// is refused by report and compare: exit 2, named; before, exit 0 and an
// empty table.
func TestReportRefusesANonResult(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "not.json")
	if err := os.WriteFile(p, []byte(`{"schema":7,"steps":null}`), 0o644); err != nil {
		t.Fatal(err)
	}
	good := writeRun(t, dir, "r.json", 2*time.Millisecond)
	for _, args := range [][]string{{"report", p}, {"compare", good, p}} {
		code, out, errs := execute(t, nil, args...)
		if code != cli.ExitUsage || !strings.Contains(errs, p+": not an objbench result file") || strings.Contains(out, "OPS/s") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 naming the file", args, code, out, errs)
		}
	}
}
