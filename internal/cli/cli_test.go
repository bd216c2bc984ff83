package cli_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/cli"
)

// execute runs a command line in-process with its own output and a clean
// environment.
func execute(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Execute(context.Background(), cli.Env{
		Args: args, Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return env[k] },
	})
	return code, out.String(), errb.String()
}

func TestHelpTeaches(t *testing.T) {
	code, out, _ := execute(t, nil, "get", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"--endpoint-url", "--concurrency", "comma list", "--no-prepare", "--range-size", "objbench get --endpoint-url"} {
		if !strings.Contains(out, want) {
			t.Errorf("get --help does not mention %q", want)
		}
	}
}

func TestFileTargetRunInProcess(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := execute(t, nil, "mixed", "--target", "file://"+dir, "--ops", "200", "--concurrency", "2",
		"--size", "1KiB", "--objects", "20", "--out", out, "--csv", out+".csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, op := range []string{"PUT", "GET", "STAT", "DELETE", "LIST"} {
		if !strings.Contains(stdout, " "+op+" ") {
			t.Errorf("no %s row in:\n%s", op, stdout)
		}
	}
	code, csv, _ := execute(t, nil, "report", out)
	if code != 0 || csv != stdout {
		t.Errorf("report reprints a different table (exit %d)", code)
	}
}

func TestUsageErrorsExitTwo(t *testing.T) {
	for _, args := range [][]string{
		{"put", "--size", "4XB"},
		{"put", "--addressing", "sideways"},
		{"put", "--http-client", "curl", "--endpoint-url", "http://127.0.0.1:1", "--bucket", "b"},
		{"server", "--memory", "--data", "/tmp/x"},
		{"put", "--endpoint-url", "http://127.0.0.1:1"},
	} {
		if code, _, errs := execute(t, map[string]string{"AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "b"}, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errs)
		}
	}
}

func TestEndpointFromEnvironmentIsNamed(t *testing.T) {
	code, _, errs := execute(t, map[string]string{"AWS_ENDPOINT_URL": "http://127.0.0.1:1"}, "put", "--ops", "1")
	if code != 2 || !strings.Contains(errs, "AWS_ENDPOINT_URL=http://127.0.0.1:1 (from the environment) needs --bucket") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

func TestWorkloadFileRefusesShapeFlags(t *testing.T) {
	for _, flag := range [][]string{{"--rate", "100/s"}, {"--max-workers", "4"}, {"--size", "1KiB"}} {
		args := append([]string{"run", "--dry-run"}, flag...)
		code, _, errs := execute(t, nil, append(args, "../../examples/every-op.yaml")...)
		if code != 2 || !strings.Contains(errs, "cannot be combined with a workload file") {
			t.Errorf("%v: exit %d, %q", flag, code, errs)
		}
	}
}
