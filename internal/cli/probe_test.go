package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestProbeEmbeddedPrintsTableAndJSON(t *testing.T) {
	out := filepath.Join(t.TempDir(), "probe.json")
	code, stdout, stderr := execute(t, nil, "probe", "--only", "etag,list,tagging", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"FEATURE", "etag.put", "list.v2", "list.order", "tagging", "cleaned up"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("probe output lacks %q:\n%s", want, stdout)
		}
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Findings []struct{ Feature, Status string }
	}
	if err := json.Unmarshal(raw, &rep); err != nil || len(rep.Findings) != 5 {
		t.Fatalf("JSON: %v, %d findings:\n%s", err, len(rep.Findings), raw)
	}
	for _, f := range rep.Findings {
		if f.Status != "yes" {
			t.Errorf("embedded server: %s is %s", f.Feature, f.Status)
		}
	}
}

func TestProbeBadInputExitsTwo(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"probe", "--only", "teleport"}, "--only teleport"},
		{[]string{"probe", "--target", "file:///tmp"}, "not s3://BUCKET"},
		{[]string{"probe", "--endpoint-url", "http://127.0.0.1:1", "--bucket", "b", "--create-bucket"}, "--create-bucket"},
	} {
		code, _, stderr := execute(t, nil, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %q", c.args, code, stderr, c.want)
		}
	}
}
