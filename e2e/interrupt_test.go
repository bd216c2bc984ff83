package e2e_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// A second Ctrl-C once ended a run in silence: no run id, no place, no
// result file, its objects left where nobody knew. It now says which run
// left what where, and the command that removes it; that command leaves
// the bucket empty. Also when the shell started objbench with SIGINT
// ignored (`objbench ... &` in a script), where restoring the default
// handler made the second interrupt do nothing.
func TestSecondInterruptSaysWhatItLeaves(t *testing.T) {
	for _, c := range []struct {
		name    string
		ignored bool
	}{{"interactive", false}, {"started with SIGINT ignored", true}} {
		t.Run(c.name, func(t *testing.T) {
			ep := standaloneServer(t, "bench", "int-ak", "int-sk", "--delay", "300ms") // every request held 300 ms
			st, err := s3.New(context.Background(), s3.Config{Endpoint: ep, Bucket: "bench", PathStyle: true,
				AccessKey: "int-ak", SecretKey: "int-sk", Region: "us-east-1"})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			env := []string{"AWS_ACCESS_KEY_ID=int-ak", "AWS_SECRET_ACCESS_KEY=int-sk", "AWS_REGION=us-east-1"}
			args := []string{"put", "--endpoint-url", ep, "--bucket", "bench", "--run-id", "intr", "-c", "8", "--duration", "60s", "-q", "-o", "r.json"}
			cmd := exec.Command(binary, args...)
			if c.ignored { // as `cmd &` in a script: the shell ignores SIGINT, exec keeps it ignored
				cmd = exec.Command("sh", append([]string{"-c", `trap "" INT; exec "$0" "$@"`, binary}, args...)...)
			}
			cmd.Dir, cmd.Env = t.TempDir(), append(os.Environ(), env...)
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
			lines := make(chan string, 100)
			go func() {
				sc := bufio.NewScanner(stderr)
				for sc.Scan() {
					lines <- sc.Text()
				}
				close(lines)
			}()
			waitForObjects(t, st, 16)
			_ = cmd.Process.Signal(syscall.SIGINT)
			var said strings.Builder
			if !readUntil(t, lines, &said, "interrupt: finishing in-flight ops, then cleaning up run intr") {
				t.Fatalf("no word after the first interrupt:\n%s", said.String())
			}
			_ = cmd.Process.Signal(syscall.SIGINT)
			readUntil(t, lines, &said, "\x00") // to the end
			err = cmd.Wait()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
				t.Errorf("exit %v, want 130", err)
			}
			want := "quit at once: run intr left what it wrote under objbench/intr/ in s3://bench at " + ep +
				", and no result file; objbench clean --run intr --endpoint-url " + ep + " --bucket bench deletes it"
			if !strings.Contains(said.String(), want) {
				t.Fatalf("after the second interrupt:\n%s\nwant %q", said.String(), want)
			}
			if left, _ := storage.KeysUnder(context.Background(), st, "objbench/intr/"); len(left) == 0 {
				t.Fatal("nothing left to clean: the test did not interrupt a cleanup")
			}
			objbench(t, t.TempDir(), env, "clean", "--run", "intr", "--endpoint-url", ep, "--bucket", "bench").mustSucceed(t)
			if left := listAll(t, st); len(left) != 0 {
				t.Errorf("left after clean --run: %v", left[:min(5, len(left))])
			}
		})
	}
}

// waitForObjects polls the bucket until it holds n objects (60 s at most).
func waitForObjects(t *testing.T, st storage.Store, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		keys, err := storage.KeysUnder(context.Background(), st, "objbench/")
		if err == nil && len(keys) >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run wrote %d objects in 60 s (%v)", len(keys), err)
		}
		time.Sleep(50 * time.Millisecond) // polling the store, bounded by the deadline
	}
}

// readUntil copies lines into said until one contains want (true) or the
// lines end or 60 s pass (false).
func readUntil(t *testing.T, lines <-chan string, said *strings.Builder, want string) bool {
	t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				return false
			}
			said.WriteString(l + "\n")
			if strings.Contains(l, want) {
				return true
			}
		case <-timeout:
			return false
		}
	}
}
