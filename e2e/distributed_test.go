package e2e_test

import (
	"bufio"
	"context"
	"math"
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

// standaloneServer starts `objbench server` as its own process, with
// more flags if given, and returns its endpoint.
func standaloneServer(t *testing.T, bucket, ak, sk string, more ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	args := append([]string{"server", "--listen", "127.0.0.1:0", "--bucket", bucket, "--access-key", ak, "--secret-key", sk}, more...)
	cmd := exec.CommandContext(ctx, binary, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if ep, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "endpoint:"); ok {
			go func() { // keep draining
				for sc.Scan() {
				}
			}()
			return strings.TrimSpace(ep)
		}
	}
	t.Fatalf("objbench server printed no endpoint: %v", sc.Err())
	return ""
}

// mainTotals sums the main steps' GET totals of a result.
func mainGET(r *result.Run) (ops, ok int64, opsPerSec float64, conc int) {
	for _, st := range r.Steps {
		if st.Kind != result.KindMain {
			continue
		}
		for _, s := range st.Streams {
			conc += s.Concurrency
			for _, t := range s.Totals {
				if t.Op == "GET" {
					ops, ok, opsPerSec = ops+t.Ops, ok+t.OK, opsPerSec+t.OpsPerSec
				}
			}
		}
	}
	return ops, ok, opsPerSec, conc
}

// Four workers launched by Open MPI's mpirun split one GET run, meet
// through the store, write a result each; their merge adds up exactly
// and matches them, and the store is left empty. Against the embedded
// server run standalone and against MinIO.
func TestMPIRunOfFourWorkersMerges(t *testing.T) {
	mpirun := testenv.MPIRun(t)
	targets := map[string]func(t *testing.T) (endpoint string, env []string, st storage.Store){
		"embedded": func(t *testing.T) (string, []string, storage.Store) {
			ep := standaloneServer(t, "bench", "mpi-ak", "mpi-sk")
			st, err := s3.New(context.Background(), s3.Config{Endpoint: ep, Bucket: "bench", PathStyle: true,
				AccessKey: "mpi-ak", SecretKey: "mpi-sk", Region: "us-east-1"})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return ep, []string{"AWS_ACCESS_KEY_ID=mpi-ak", "AWS_SECRET_ACCESS_KEY=mpi-sk", "AWS_REGION=us-east-1"}, st
		},
		"minio": func(t *testing.T) (string, []string, storage.Store) {
			m, st, _, env := minioEnv(t)
			return m.Endpoint, env, st
		},
	}
	for name, start := range targets {
		t.Run(name, func(t *testing.T) {
			endpoint, env, st := start(t)
			dir := t.TempDir()
			env = append(env, "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1", "OMPI_MCA_btl_vader_single_copy_mechanism=none")
			r := objbenchCmd(t, dir, env, 3*time.Minute, mpirun, "--oversubscribe", "-np", "4", binary, "get",
				"--endpoint-url", endpoint, "--bucket", "bench", "--worker", "auto", "--run-id", "mpi-"+name,
				"--duration", "2s", "-c", "8", "--objects", "80", "--size", "8KiB", "--out", "res/", "-q")
			if r.code != 0 {
				t.Fatalf("mpirun: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			files, _ := filepath.Glob(filepath.Join(dir, "res", "mpi-"+name, "worker-*.json"))
			if len(files) != 4 {
				t.Fatalf("want 4 worker results, got %v", files)
			}
			var ops, ok int64
			var sum float64
			for _, f := range files {
				w := readResult(t, f)
				o, k, rate, conc := mainGET(w)
				ops, ok, sum = ops+o, ok+k, sum+rate
				if w.Worker == nil || w.Worker.Size != 4 || w.Worker.Engine != "Open MPI" || conc != 2 {
					t.Errorf("%s: worker %+v, %d workers; want one of 4 launched by Open MPI, 2 workers", f, w.Worker, conc)
				}
			}
			m := objbench(t, dir, nil, "merge", filepath.Join("res", "mpi-"+name), "-o", "merged.json").mustSucceed(t)
			merged := readResult(t, filepath.Join(dir, "merged.json"))
			mo, mk, mrate, mconc := mainGET(merged)
			if mo != ops || mk != ok || mk != mo || mconc != 8 || merged.Partial() != "" {
				t.Errorf("merged %d ops (%d ok) at conc %d, partial %q; the workers did %d (%d ok) at 8", mo, mk, mconc, merged.Partial(), ops, ok)
			}
			if math.Abs(mrate/sum-1) > 0.05 {
				t.Errorf("merged %.0f ops/s, the workers' own rates sum to %.0f", mrate, sum)
			}
			if put := merged.Steps[0].Streams[0].Totals[0]; put.Op != "PUT" || put.OK != 80 {
				t.Errorf("prepare: %+v; want the 80 objects written once", put)
			}
			if !strings.Contains(m.stdout, "Workers of run mpi-"+name+": 4 of 4 merged") {
				t.Errorf("merge's table has no workers line:\n%s", m.stdout)
			}
			if left := listAll(t, st); len(left) != 0 {
				t.Errorf("%d objects left after the run: %v", len(left), left[:min(5, len(left))])
			}
		})
	}
}

// objbenchCmd runs a command (mpirun, ip netns exec) in dir with extra env.
func objbenchCmd(t *testing.T, dir string, env []string, limit time.Duration, name string, args ...string) run {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return run{code, out.String(), errb.String()}
}
