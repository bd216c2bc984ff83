package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestToolsBadInputExits2NamingIt(t *testing.T) {
	dir := t.TempDir()
	out := []string{"--csv", filepath.Join(dir, "t.csv"), "--json", filepath.Join(dir, "t.json")}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--files", "3x1MiB,0x1MiB"}, `"0x1MiB"`},
		{[]string{"--files", "3xbig"}, `"3xbig"`},
		{[]string{"--threads", "1,zero"}, `"zero"`},
		{[]string{"--threads", "0"}, `"0"`},
		{[]string{"--repeat", "0"}, "--repeat 0"},
		{[]string{"--tools", "aws,wget"}, `"wget"`},
		{[]string{"--tool", "x=cmd {src}"}, `"x"`},
		{[]string{"--tool", "aws=aws s3 cp {src} {dst}"}, "built-in"},
		{[]string{"--tool", "m=m {src} {dst} {thread}"}, "{thread}"},
		{[]string{"--target", "s3://b"}, "--target"},
		{[]string{"--endpoint-url", "http://127.0.0.1:1"}, "--bucket"},
		{[]string{"--run-timeout", "0s"}, "--run-timeout"},
		{[]string{"--scaling", "strongish"}, `--scaling "strongish"`},
	} {
		code, stdout, stderr := execute(t, nil, append(append([]string{"tools"}, c.args...), out...)...)
		if code != 2 || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q (want exit 2 naming %s)", c.args, code, stderr, c.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("bad input wrote %v", entries)
	}
}

func TestToolsHelpHasExamples(t *testing.T) {
	code, out, _ := execute(t, nil, "tools", "--help")
	for _, want := range []string{"objbench tools --files", "--tool 'mytool=mytool cp {src} {dst} -j {threads}'",
		"--repeat", "--csv", "--json", "s3cmd has no parallelism knob", "scripts/install-tools.sh"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("tools --help (exit %d) lacks %q", code, want)
		}
	}
}

// With the embedded server: a tool that uploads nothing is caught and the
// command fails; a missing one is skipped and says so; CSV and JSON are
// still written.
func TestToolsReportsFailedAndSkippedTools(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := execute(t, nil, "tools", "--tools", "", "--tool", "idle=true {src} {dst}",
		"--tool", "ghost=objbench-no-such-tool {src} {dst}", "--files", "2x64KiB", "--threads", "1",
		"--csv", filepath.Join(dir, "t.csv"), "--json", filepath.Join(dir, "t.json"))
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"| idle   |       1 |     2 |", "FAILED", "skipped ghost is not installed"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "skipped ghost") || !strings.Contains(stderr, "[1/1] idle 2x64KiB 1 threads run 1: FAILED") {
		t.Errorf("stderr:\n%s", stderr)
	}
	for _, f := range []string{"t.csv", "t.json"} {
		if b, err := os.ReadFile(filepath.Join(dir, f)); err != nil || !strings.Contains(string(b), "idle") {
			t.Errorf("%s: %v", f, err)
		}
	}
}
