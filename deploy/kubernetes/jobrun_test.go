//go:build linux

package kubernetes_test

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/s3server"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// testWorkload stands in for the ConfigMap's (minutes of 512 workers):
// the same stages, small.
const testWorkload = `name: container-test
stages:
  - kind: prepare
    concurrency: 3
    size: 4KiB
    objects: {prefix: data/, count: 30}
  - kind: main
    concurrency: 6
    duration: 2s
    size: 4KiB
    objects: {prefix: data/, count: 30}
    ops: {read: 90, write: 10}
  - kind: cleanup
`

// sharedTempDir is a temporary directory the Job's user may enter.
func sharedTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "objbench-container-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// buildStatic builds objbench into dist as the Dockerfile's build stage
// does (its own go build line), beside the CA bundle the image carries.
func buildStatic(t *testing.T, stages []stage, dist string) string {
	t.Helper()
	if err := os.MkdirAll(dist, 0o755); err != nil {
		t.Fatal(err)
	}
	env, args := goBuild(t, stages)
	o := slices.Index(args, "-o")
	if o < 0 || o+1 >= len(args) {
		t.Fatalf("go build %v: no -o", args)
	}
	bin := filepath.Join(dist, "objbench")
	args = slices.Clone(args)
	args[o+1] = bin
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, "go", append([]string{"build"}, args...)...)
	build.Dir = "../.." // the Dockerfile's context: the repository
	build.Env = append(os.Environ(), env...)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", strings.Join(env, " "), build.Args, err, out)
	}
	ca, err := os.ReadFile("/etc/ssl/certs/ca-certificates.crt")
	if err != nil {
		t.Logf("no CA bundle on this machine (%v): the image gets an empty one", err)
	}
	if err := os.WriteFile(filepath.Join(dist, "ca-certificates.crt"), ca, 0o644); err != nil {
		t.Fatal(err)
	}
	return bin
}

// volumeDirs makes a host directory for each of the pod's volumes: the
// ConfigMap's files (the test's workload under the ConfigMap's key), an
// emptyDir as Kubernetes makes it (empty, anyone may write).
func volumeDirs(t *testing.T, work string, pd pod, cm *corev1.ConfigMap) map[string]string {
	t.Helper()
	dirs := map[string]string{}
	for name, v := range pd.volumes {
		dir := filepath.Join(work, "volume-"+name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		switch {
		case v.ConfigMap != nil && v.ConfigMap.Name == cm.Name:
			for key := range cm.Data {
				if err := os.WriteFile(filepath.Join(dir, key), []byte(testWorkload), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		case v.EmptyDir != nil:
			if err := os.Chmod(dir, 0o777); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("volume %s: a kind this test does not make", name)
		}
		dirs[name] = dir
	}
	return dirs
}

// outBucket is --out=s3://BUCKET/PREFIX/ of args, split.
func outBucket(t *testing.T, args []string) (bucket, prefix string) {
	t.Helper()
	u, err := url.Parse(arg(args, "--out"))
	if err != nil || u.Scheme != "s3" {
		t.Fatalf("args %v: want --out=s3://BUCKET/PREFIX/", args)
	}
	return u.Host, strings.TrimPrefix(u.Path, "/")
}

func list(t *testing.T, st storage.Store) []string {
	t.Helper()
	var keys []string
	if err := st.List(context.Background(), "", func(o storage.ObjectInfo) error { keys = append(keys, o.Key); return nil }); err != nil {
		t.Fatal(err)
	}
	return keys
}

// The Job's pods, run as the kubelet would run them (the manifest's
// args, environment, user, read-only root and volumes; only N, the
// endpoint and the workload's size changed, as a user changes them) from
// the image built from deploy/Dockerfile, against the embedded server:
// every worker uploads its result to the results bucket under the Job's
// name and uid, writes nothing else, and the results merge. A missing
// results bucket stops a pod before any load.
func TestJobRunsAsShipped(t *testing.T) {
	var job batchv1.Job
	decodeStrict(t, "job.yaml", &job)
	var cm corev1.ConfigMap
	decodeStrict(t, "workload.yaml", &cm)
	stages := dockerStages(t, "../Dockerfile")
	work := sharedTempDir(t)
	bin := buildStatic(t, stages, filepath.Join(work, "dist"))
	var l launcher
	if p, err := startPodman(t, work, filepath.Join(work, "dist")); err == nil {
		l = p
	} else if os.Getenv("OBJBENCH_REQUIRE_PODMAN") != "" {
		t.Fatalf("podman is required (OBJBENCH_REQUIRE_PODMAN) but cannot run: %v", err)
	} else {
		t.Logf("no containers: %v", err)
		empty := filepath.Join(work, "empty")
		if err := os.Mkdir(empty, 0o555); err != nil {
			t.Fatal(err)
		}
		l = &bareUser{bin: bin, dir: empty}
	}
	t.Logf("the Job's pods run as %s", l.what())

	ctx := context.Background()
	args := job.Spec.Template.Spec.Containers[0].Args
	resultsBucket, prefix := outBucket(t, args)
	srv, err := s3server.Start(ctx, s3server.Config{Buckets: []string{arg(args, "--bucket"), resultsBucket}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(context.Background()) })
	open := func(bucket string) *s3.Store {
		st, err := s3.New(ctx, s3.Config{Endpoint: srv.Endpoint(), Bucket: bucket, PathStyle: true,
			AccessKey: srv.AccessKey(), SecretKey: srv.SecretKey(), Region: "us-east-1"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	bench, results := open(arg(args, "--bucket")), open(resultsBucket)
	secret := map[string]string{"access-key": srv.AccessKey(), "secret-key": srv.SecretKey()}
	set := map[string]string{"S3_ENDPOINT": srv.Endpoint()}

	const n = 3
	uid := jobUID()
	runCtx, cancel := context.WithTimeout(ctx, 4*time.Minute)
	defer cancel()
	cmds := make([]*exec.Cmd, n)
	outs := make([]bytes.Buffer, n)
	var dirs []map[string]string
	for i := range n {
		pd := podOf(t, &job, uid, i, secret, set)
		pd.args = withArg(t, pd.args, "--workers-total", fmt.Sprint(n))
		d := volumeDirs(t, filepath.Join(work, fmt.Sprintf("pod-%d", i)), pd, &cm)
		dirs = append(dirs, d)
		cmds[i] = l.command(runCtx, t, pd, d)
		cmds[i].Stdout, cmds[i].Stderr = &outs[i], &outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("pod %d: %v\n%s", i, err, outs[i].String())
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("pod 0's output:\n%s", outs[0].String())

	runID := job.Name + "-" + uid
	var want []string
	for i := range n {
		want = append(want, fmt.Sprintf("%s%s/worker-%d.json", prefix, runID, i))
	}
	if got := list(t, results); !slices.Equal(got, want) {
		t.Errorf("the results bucket holds %v; want %v (the run id is the Job's name and uid)", got, want)
	}
	if left := list(t, bench); len(left) != 0 {
		t.Errorf("%d objects left in the bucket under test", len(left))
	}
	for i, d := range dirs {
		for name, dir := range d {
			if es, _ := os.ReadDir(dir); len(es) > 0 && name != "workload" {
				t.Errorf("pod %d wrote %d entries in volume %s (%s...), asked for none", i, len(es), name, es[0].Name())
			}
		}
	}

	merged := filepath.Join(work, "merged.json")
	merge := exec.CommandContext(runCtx, bin, "merge", "s3://"+resultsBucket+"/"+prefix+runID+"/", "--endpoint-url", srv.Endpoint(),
		"-o", merged)
	merge.Env = append(os.Environ(), "AWS_ACCESS_KEY_ID="+srv.AccessKey(), "AWS_SECRET_ACCESS_KEY="+srv.SecretKey(), "AWS_REGION=us-east-1")
	out, err := merge.CombinedOutput()
	if err != nil || !strings.Contains(string(out), fmt.Sprintf("Workers of run %s: %d of %d merged", runID, n, n)) {
		t.Fatalf("merge: %v\n%s", err, out)
	}
	t.Logf("merge:\n%s", out)
	res, err := result.Read(merged)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := res.OpTotals(result.KindPrepare, "PUT"); ok != 30 {
		t.Errorf("merged prepare wrote %d objects, the workload 30", ok)
	}
	if ops, ok, _ := res.OpTotals(result.KindMain, "GET"); ops == 0 || ok != ops {
		t.Errorf("merged main: %d GETs, %d ok", ops, ok)
	}

	// A results bucket that is not there stops a pod before any load.
	pd := podOf(t, &job, jobUID(), 0, secret, set)
	pd.args = withArg(t, withArg(t, pd.args, "--workers-total", "1"), "--out", "s3://no-such-results/runs/")
	c := l.command(runCtx, t, pd, volumeDirs(t, filepath.Join(work, "pod-nobucket"), pd, &cm))
	out, err = c.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "no-such-results does not exist") {
		t.Errorf("a pod with a missing results bucket: %v, want exit 2 naming it:\n%s", err, out)
	}
	if left := list(t, bench); len(left) != 0 {
		t.Errorf("the pod with no results bucket wrote %d objects", len(left))
	}
}
