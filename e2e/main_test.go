package e2e_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// binary is the objbench executable built once for all tests.
var binary string

func TestMain(m *testing.M) {
	spinIfAsked()
	dir, err := os.MkdirTemp("", "objbench-e2e-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "objbench")
	build := exec.Command("go", "build", "-o", binary, "../cmd/objbench")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build objbench:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// run is one finished objbench invocation.
type run struct {
	code           int
	stdout, stderr string
}

// objbench runs the binary with args (in dir, with extra env) and waits at
// most two minutes.
func objbench(t *testing.T, dir string, env []string, args ...string) run {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("objbench %v: %v", args, err)
	}
	return run{code, out.String(), errb.String()}
}

func (r run) mustSucceed(t *testing.T) run {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	return r
}

// readResult loads the only result file written under dir.
func readResult(t *testing.T, path string) *result.Run {
	t.Helper()
	res, err := result.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// mainOps returns the main-stage totals of op in res, summed over steps.
func mainOps(res *result.Run, op string) (ops, ok, bytes int64) {
	return res.OpTotals(result.KindMain, op)
}

// minioEnv starts MinIO with a bucket and returns it, flags and env for objbench.
func minioEnv(t *testing.T) (*testenv.MinIO, *s3.Store, []string, []string) {
	t.Helper()
	m := testenv.StartMinIO(t)
	st, err := s3.New(context.Background(), s3.Config{Endpoint: m.Endpoint, Bucket: "bench", PathStyle: true,
		AccessKey: m.AccessKey, SecretKey: m.SecretKey, Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.CreateBucket(context.Background()); err != nil {
		t.Fatal(err)
	}
	env := []string{"AWS_ACCESS_KEY_ID=" + m.AccessKey, "AWS_SECRET_ACCESS_KEY=" + m.SecretKey, "AWS_REGION=us-east-1"}
	return m, st, []string{"--endpoint-url", m.Endpoint, "--bucket", "bench"}, env
}

func listAll(t *testing.T, st storage.Store) []string {
	t.Helper()
	var keys []string
	if err := st.List(context.Background(), "", func(o storage.ObjectInfo) error { keys = append(keys, o.Key); return nil }); err != nil {
		t.Fatal(err)
	}
	return keys
}

func noSecrets(t *testing.T, where string, text string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(text, s) {
			t.Errorf("%s contains a credential", where)
		}
	}
}
