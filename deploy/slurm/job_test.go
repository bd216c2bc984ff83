// Package slurm_test runs the Slurm batch script (job.sbatch) as sbatch
// would run it on the first node of an allocation, with a fake srun that
// records its arguments and starts the tasks here, each with the
// variables Slurm gives a task.
package slurm_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/s3server"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// fakeSrun starts SLURM_NTASKS copies of its command, task i with
// SLURM_PROCID=i, after recording its arguments.
const fakeSrun = `#!/usr/bin/env bash
echo "$*" >> "$SRUN_LOG"
while [ $# -gt 0 ]; do
  case $1 in
  --*=*) shift ;;
  -*) shift 2 ;;
  *) break ;;
  esac
done
pids=()
for ((i = 0; i < SLURM_NTASKS; i++)); do
  SLURM_PROCID=$i SLURM_LOCALID=$i "$@" &
  pids+=($!)
done
s=0
for p in "${pids[@]}"; do wait "$p" || s=1; done
exit $s
`

// sbatchValue is the value of "#SBATCH --name=value" in the script.
func sbatchValue(t *testing.T, script, name string) string {
	t.Helper()
	b, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^#SBATCH --` + name + `=(\S+)$`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s sets no --%s", script, name)
	}
	return string(m[1])
}

// The batch script passes the job's CPUs per task on to srun (which
// since Slurm 22.05 does not inherit them), its tasks write their results
// to the store or to a shared directory, and it merges them.
func TestSlurmScriptRunsTasksAndMerges(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("job.sbatch needs bash")
	}
	script, err := filepath.Abs("job.sbatch")
	if err != nil {
		t.Fatal(err)
	}
	cpus := sbatchValue(t, script, "cpus-per-task")
	objbench := testenv.BuildObjbench(t, t.TempDir())
	const ak, sk = "slurm-ak", "slurm-sk"
	ctx := context.Background()
	srv, err := s3server.Start(ctx, s3server.Config{AccessKey: ak, SecretKey: sk, Buckets: []string{"bench", "results"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(context.Background()) })
	results, err := s3.New(ctx, s3.Config{Endpoint: srv.Endpoint(), Bucket: "results", PathStyle: true, AccessKey: ak, SecretKey: sk, Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { results.Close() })

	for _, c := range []struct {
		name, results string
		wantCode      int
	}{
		{"store", "s3://results/runs/", 0},
		{"shared-dir", "", 0},                // the default: objbench-results/ where sbatch ran
		{"no-slash", "s3://results/runs", 2}, // refused before srun
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			bin := filepath.Join(dir, "bin")
			if err := os.MkdirAll(bin, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(bin, "srun"), []byte(fakeSrun), 0o755); err != nil {
				t.Fatal(err)
			}
			wl := "name: slurm-test\nstages:\n  - {kind: prepare, concurrency: 3, size: 4KiB, objects: {prefix: d/, count: 30}}\n" +
				"  - {kind: main, concurrency: 3, duration: 1s, size: 4KiB, objects: {prefix: d/, count: 30}, ops: {read: 100}}\n  - {kind: cleanup}\n"
			if err := os.WriteFile(filepath.Join(dir, "w.yaml"), []byte(wl), 0o644); err != nil {
				t.Fatal(err)
			}
			jobID := "42" + strings.ReplaceAll(c.name, "-", "")
			env := []string{"PATH=" + bin + ":" + filepath.Dir(objbench) + ":" + os.Getenv("PATH"), "HOME=" + dir,
				"SRUN_LOG=" + filepath.Join(dir, "srun-argv"), "SLURM_JOB_ID=" + jobID, "SLURM_NTASKS=3", "SLURM_CPUS_PER_TASK=" + cpus,
				"SLURM_SUBMIT_DIR=" + dir, "S3_ENDPOINT=" + srv.Endpoint(), "AWS_ACCESS_KEY_ID=" + ak, "AWS_SECRET_ACCESS_KEY=" + sk, "AWS_REGION=us-east-1"}
			if c.results != "" {
				env = append(env, "OBJBENCH_RESULTS="+c.results)
			}
			rctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(rctx, "bash", script, filepath.Join(dir, "w.yaml"))
			cmd.Dir, cmd.Env = dir, env
			out, err := cmd.CombinedOutput()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != c.wantCode {
				t.Fatalf("exit %d, want %d:\n%s", code, c.wantCode, out)
			}
			argv, _ := os.ReadFile(filepath.Join(dir, "srun-argv"))
			if c.wantCode != 0 {
				if len(argv) != 0 {
					t.Errorf("srun ran (%s) with a bad OBJBENCH_RESULTS", argv)
				}
				return
			}
			if !strings.HasPrefix(string(argv), "--cpus-per-task="+cpus+" ") {
				t.Errorf("srun %s: want --cpus-per-task=%s first (the job's, which srun no longer inherits)", argv, cpus)
			}
			if !strings.Contains(string(out), "3 of 3 merged") {
				t.Errorf("the script's merge did not merge the 3 tasks:\n%s", out)
			}
			if _, err := os.Stat(filepath.Join(dir, "merged-"+jobID+".json")); err != nil {
				t.Errorf("no merged result: %v", err)
			}
			var keys []string
			_ = results.List(ctx, "runs/"+jobID+"/", func(o storage.ObjectInfo) error { keys = append(keys, o.Key); return nil })
			local, _ := filepath.Glob(filepath.Join(dir, "objbench-results", jobID, "worker-*.json"))
			if c.results != "" && (len(keys) != 3 || len(local) != 0) || c.results == "" && (len(keys) != 0 || len(local) != 3) {
				t.Errorf("results in the bucket %v, in the shared directory %v; want 3 in the %s", keys, local, c.name)
			}
		})
	}
}
