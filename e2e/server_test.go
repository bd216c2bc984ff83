package e2e_test

import (
	"bufio"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// `objbench server` is an endpoint other tools (here: objbench itself, as a
// separate process) can measure, with the credentials it prints.
func TestStandaloneServerServesAnotherClient(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv := exec.CommandContext(ctx, binary, "server", "--listen", "127.0.0.1:0", "--bucket", "shared", "--data", t.TempDir())
	out, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); _ = srv.Wait() }()
	var env []string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, "export ") {
			env = strings.Fields(strings.TrimPrefix(line, "export "))
			break
		}
	}
	var endpoint string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "AWS_ENDPOINT_URL="); ok {
			endpoint = v
		}
	}
	if !strings.HasPrefix(endpoint, "http://127.0.0.1:") || len(env) != 3 {
		t.Fatalf("server did not print its endpoint and credentials; got %v", env)
	}
	dir := t.TempDir()
	res := filepath.Join(dir, "r.json")
	objbench(t, dir, env, "get", "--bucket", "shared", "--size", "1MiB", "--objects", "8", "--ops", "40",
		"--concurrency", "4", "--out", res).mustSucceed(t)
	if ops, ok, bytes := mainOps(readResult(t, res), "GET"); ok != 40 || ops != 40 || bytes != 40<<20 {
		t.Errorf("GET against the standalone server: %d ops, %d ok, %d bytes", ops, ok, bytes)
	}
}
