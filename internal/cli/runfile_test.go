package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const tinyWorkload = `name: tiny
stages:
  - kind: main
    concurrency: 2
    total_ops: 40
    ops: {write: 50, read: 50}
    objects: {prefix: t/}
    size: 1KiB
  - kind: cleanup
`

func TestRunWorkloadFileInProcess(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "w.yaml")
	if err := os.WriteFile(file, []byte(tinyWorkload), 0o644); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	out := filepath.Join(dir, "r.json")
	code, stdout, stderr := execute(t, nil, "run", "--target", "file://"+data, "--out", out, file)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, " PUT ") || !strings.Contains(stdout, " GET ") {
		t.Errorf("no PUT and GET rows:\n%s", stdout)
	}
	if entries, _ := os.ReadDir(data); len(entries) != 0 {
		t.Errorf("the cleanup stage left %v", entries)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--size", "4KiB", file}, "--size cannot be combined with a workload file"},
		{[]string{"run", "--concurrency", "4", file}, "--concurrency cannot be combined"},
		{[]string{"run", "--scale", "0", file}, "--scale 0"},
		{[]string{"run", filepath.Join(dir, "missing.yaml")}, "missing.yaml"},
		{[]string{"run", file, file}, "run takes one workload file at most, got 2 arguments"},
	} {
		code, _, stderr := execute(t, nil, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

func TestDryRunTouchesNothing(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"run", "--dry-run"}, []string{"target: the embedded S3 server", `stream "run": get 45%, put 15%, stat 25%, delete 10%, list 5%`}},
		{[]string{"run", "--dry-run", "--scale", "0.1", "--endpoint-url", "http://127.0.0.1:1", "--bucket", "b"},
			[]string{"target: http://127.0.0.1:1, bucket b", "scaled by 0.1", "for 500ms"}},
	} {
		code, stdout, stderr := execute(t, nil, c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stdout, w) {
				t.Errorf("%v: no %q in:\n%s", c.args, w, stdout)
			}
		}
	}
}
