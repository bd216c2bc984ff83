package e2e_test

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// `objbench server` prints a block to paste into a shell and a first
// command for objbench, the aws CLI and boto3: pasted into a fresh shell
// (no AWS settings of the user's, objbench on PATH), each works, with the
// server in memory, in a directory, over TLS, and with a secret the user
// gave (which it does not print: the user exports it, as it says).
func TestServerBlockWorksAsPasted(t *testing.T) {
	aws, boto3 := true, true
	if _, err := exec.LookPath("aws"); err != nil {
		aws = false
	}
	if exec.Command("python3", "-c", "import boto3").Run() != nil {
		boto3 = false
	}
	if (!aws || !boto3) && os.Getenv("OBJBENCH_REQUIRE_TOOLS") != "" {
		t.Fatalf("the aws CLI (%v) and boto3 (%v) are required: scripts/install-tools.sh, .venv-tools/bin first on PATH", aws, boto3)
	}
	for _, c := range []struct {
		name string
		args []string
		env  []string // what the user adds, as the block says
	}{
		{name: "memory"},
		{name: "data directory", args: []string{"--data", t.TempDir()}},
		{name: "tls", args: []string{"--tls"}},
		{name: "secret given", args: []string{"--secret-key", "pasted-secret"}, env: []string{"AWS_SECRET_ACCESS_KEY=pasted-secret"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			block, cmds := serverBlock(t, c.args...)
			for _, cmd := range cmds {
				switch {
				case strings.HasPrefix(cmd, "aws ") && !aws, strings.HasPrefix(cmd, "python3 ") && !boto3:
					t.Logf("not run (not installed; scripts/install-tools.sh): %s", cmd)
					continue
				case strings.HasPrefix(cmd, "objbench run") && c.name != "memory" && c.name != "tls":
					cmd += " --duration 1s" // the same command, shorter: the run itself is another test's
				}
				out := pasted(t, block+"\n"+cmd, c.env)
				switch {
				case strings.HasPrefix(cmd, "objbench "):
					if !strings.Contains(out, "OPS/S") || !strings.Contains(out, "GET") {
						t.Errorf("%s printed no table:\n%s", cmd, out)
					}
				case strings.HasPrefix(cmd, "python3 "):
					if strings.TrimSpace(out) != "0" { // objbench run cleaned up after itself
						t.Errorf("%s printed %q, want 0 (objects)", cmd, out)
					}
				}
			}
		})
	}
}

// serverBlock starts `objbench server` with args and returns the lines
// it says to paste and the example commands that follow them.
func serverBlock(t *testing.T, args ...string) (string, []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	srv := exec.CommandContext(ctx, binary, append([]string{"server", "--listen", "127.0.0.1:0"}, args...)...)
	srv.Cancel = func() error { return srv.Process.Signal(os.Interrupt) }
	srv.WaitDelay = 30 * time.Second
	out, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = srv.Wait() })
	var paste, cmds []string
	var printed strings.Builder
	section := ""
	sc := bufio.NewScanner(out)
	for sc.Scan() && !strings.HasPrefix(sc.Text(), "Ctrl-C") {
		line := sc.Text()
		printed.WriteString(line + "\n")
		switch {
		case strings.HasPrefix(line, "Paste into a shell"):
			section = "paste"
		case strings.HasPrefix(line, "then, for example"):
			section = "commands"
		case section == "paste":
			paste = append(paste, strings.TrimSpace(line))
		case section == "commands":
			cmds = append(cmds, strings.TrimSpace(line))
		}
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	if len(paste) == 0 || len(cmds) < 3 {
		t.Fatalf("no block to paste and commands after it:\n%s", printed.String())
	}
	return strings.Join(paste, "\n"), cmds
}

// pasted runs text in a fresh sh: no AWS settings of this machine's
// user, a home of its own, objbench on PATH. It must succeed.
func pasted(t *testing.T, text string, env []string) string {
	t.Helper()
	home := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", text)
	cmd.Dir = home
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") && !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "PATH=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(append(cmd.Env, "HOME="+home, "PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH")), env...)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pasted into sh:\n%s\n%v:\n%s", text, err, b)
	}
	return string(b)
}
