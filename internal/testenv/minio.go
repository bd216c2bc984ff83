package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// MinIO is a running MinIO server owned by one test.
type MinIO struct {
	Endpoint  string // http://127.0.0.1:PORT
	AccessKey string
	SecretKey string

	bin, addr, console, dir string
	kill                    context.CancelFunc // kills the running process
	exited                  chan error
}

// MinIOBinary finds the server: $OBJBENCH_MINIO, then GOPATH/bin, then PATH.
func MinIOBinary() (string, error) {
	if p := os.Getenv("OBJBENCH_MINIO"); p != "" {
		return p, nil
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		p := filepath.Join(strings.TrimSpace(string(out)), "bin", "minio")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return exec.LookPath("minio")
}

// StartMinIO starts MinIO for tb, or skips the test when MinIO is not
// installed — unless OBJBENCH_REQUIRE_MINIO is set (the test script sets
// it), in which case a missing server fails the test.
func StartMinIO(tb testing.TB) *MinIO {
	tb.Helper()
	bin, err := MinIOBinary()
	if err != nil {
		if os.Getenv("OBJBENCH_REQUIRE_MINIO") != "" {
			tb.Fatalf("MinIO is required but not installed: run scripts/install-minio.sh (%v)", err)
		}
		tb.Skip("MinIO not installed (scripts/install-minio.sh installs it); skipping the MinIO integration test")
	}
	m := &MinIO{AccessKey: "ak" + randHex(8), SecretKey: "sk" + randHex(16)}
	var lastErr error
	for range 3 { // a free port can be taken between probing and binding
		if lastErr = m.start(tb, bin); lastErr == nil {
			return m
		}
	}
	tb.Fatalf("start MinIO: %v", lastErr)
	return nil
}

func (m *MinIO) start(tb testing.TB, bin string) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	console, err := freePort()
	if err != nil {
		return err
	}
	m.bin, m.addr, m.console, m.dir = bin, fmt.Sprintf("127.0.0.1:%d", port), fmt.Sprintf("127.0.0.1:%d", console), tb.TempDir()
	if err := m.run(); err != nil {
		return err
	}
	tb.Cleanup(m.Kill)
	return nil
}

// Kill ends the server at once (SIGKILL), as a crash would; Restart
// brings it back.
func (m *MinIO) Kill() {
	if m.kill != nil {
		m.kill()
		<-m.exited
		m.kill = nil
	}
}

// Restart starts a killed server again on the same address and data.
func (m *MinIO) Restart() error { return m.run() }

// run starts the server process on m's address and data directory and
// waits until it answers.
func (m *MinIO) run() error {
	addr := m.addr
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, m.bin, "server", "--quiet", "--address", addr, "--console-address", m.console, m.dir)
	cmd.Env = append(os.Environ(), "MINIO_ROOT_USER="+m.AccessKey, "MINIO_ROOT_PASSWORD="+m.SecretKey,
		"MINIO_BROWSER=off", "MINIO_UPDATE=off", "MINIO_CI_CD=1")
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		cancel()
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	m.Endpoint = "http://" + addr
	if err := waitLive(m.Endpoint, exited, 60*time.Second); err != nil {
		cancel()
		<-exited
		return fmt.Errorf("%w; minio said: %s", err, logs.String())
	}
	m.kill, m.exited = cancel, exited
	return nil
}

// waitLive polls MinIO until its S3 API answers (anything but 503: its
// health endpoints report ready before the object layer is initialized),
// the process exits, or the deadline passes.
func waitLive(endpoint string, exited <-chan error, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	client := &http.Client{Timeout: time.Second}
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("minio exited: %v", err)
		default:
		}
		resp, err := client.Get(endpoint + "/objbench-readiness-probe/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusServiceUnavailable {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond) // polling a condition, not synchronising on time
	}
	return fmt.Errorf("minio not ready at %s after %v", endpoint, limit)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
