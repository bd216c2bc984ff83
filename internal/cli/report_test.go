package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
