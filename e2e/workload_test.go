package e2e_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/s3server"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
	"github.com/objbench/objbench/workload"
)

// exampleScale shrinks every example (counts, limits, durations) so that
// each runs in a second or two; CI has two cores for the whole suite.
const exampleScale = "0.005"

// fileSecret is the secret key written in the COSBench examples: it must
// never reach the output or the result file.
const fileSecret = "cosbench-secret-do-not-print"

// localServer starts the embedded S3 server in the test with one bucket
// that already holds someone's object.
func localServer(t *testing.T) (*s3server.Server, *s3.Store, []string) {
	t.Helper()
	ctx := context.Background()
	srv, err := s3server.Start(ctx, s3server.Config{Buckets: []string{"objbench"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(context.Background()) })
	st, err := s3.New(ctx, s3.Config{Endpoint: srv.Endpoint(), Bucket: "objbench", PathStyle: true,
		AccessKey: srv.AccessKey(), SecretKey: srv.SecretKey(), Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.Put(ctx, "keep/me", strings.NewReader("precious"), 8, storage.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	env := []string{"AWS_ACCESS_KEY_ID=" + srv.AccessKey(), "AWS_SECRET_ACCESS_KEY=" + srv.SecretKey(), "AWS_REGION=us-east-1"}
	return srv, st, env
}

// TestExamplesRunScaledDown runs every example workload, YAML and COSBench
// XML, scaled down against the embedded server: every op succeeds, and
// afterwards the server holds exactly what it held before.
func TestExamplesRunScaledDown(t *testing.T) {
	files, _ := filepath.Glob("../examples/*.yaml")
	xml, _ := filepath.Glob("../examples/cosbench/*.xml")
	files = append(files, xml...)
	if len(files) < 6 {
		t.Fatalf("found only %v", files)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			srv, st, env := localServer(t)
			dir := t.TempDir()
			out := filepath.Join(dir, "r.json")
			path, _ := filepath.Abs(file)
			r := objbench(t, dir, env, "run", "--scale", exampleScale, "--endpoint-url", srv.Endpoint(),
				"--bucket", "objbench", "--out", out, path).mustSucceed(t)
			res := readResult(t, out)
			var ops int64
			for _, s := range res.Steps {
				for _, sr := range s.Streams {
					for _, tot := range sr.Totals {
						ops += tot.Ops
						if tot.OK != tot.Ops {
							t.Errorf("%s %s %s: %d of %d ops failed: %v", s.Stage, sr.Name, tot.Op, tot.Ops-tot.OK, tot.Ops, tot.Errors)
						}
					}
				}
			}
			var spec workload.Spec
			if err := json.Unmarshal(res.Spec, &spec); err != nil {
				t.Fatalf("the result's spec: %v", err)
			}
			if ops == 0 || spec.ScaledBy != 0.005 || spec.Source == nil {
				t.Errorf("ran %d ops; spec scaled by %v, source %+v", ops, spec.ScaledBy, spec.Source)
			}
			if keys := listAll(t, st); len(keys) != 1 || keys[0] != "keep/me" {
				t.Errorf("after the run the target bucket holds %v; want only keep/me", keys)
			}
			assertOnlyBucket(t, srv, env)
			raw, _ := os.ReadFile(out)
			for where, text := range map[string]string{"stdout": r.stdout, "stderr": r.stderr, "result file": string(raw)} {
				noSecrets(t, where, text, fileSecret)
			}
		})
	}
}

// assertOnlyBucket checks that the buckets a run created are gone again.
func assertOnlyBucket(t *testing.T, srv *s3server.Server, env []string) {
	t.Helper()
	for _, name := range []string{"bench-1", "bench-2", "s3testqwer1", "s3testqwer2", "alluxio-read1"} {
		st, err := s3.New(context.Background(), s3.Config{Endpoint: srv.Endpoint(), Bucket: name, PathStyle: true,
			AccessKey: srv.AccessKey(), SecretKey: srv.SecretKey(), Region: "us-east-1"})
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := st.BucketExists(context.Background()); ok || err != nil {
			t.Errorf("bucket %s is still there (%v) after the run's dispose", name, err)
		}
		st.Close()
	}
}

// TestCOSBenchDryRunGolden: the COSBench samples plan as expected, with
// what objbench does not honour listed, no credential shown, no storage
// touched (the file's endpoint is not even reachable) and no file written.
func TestCOSBenchDryRunGolden(t *testing.T) {
	_, statErr := os.Stat("../objbench-results")
	hadResults := statErr == nil
	files, _ := filepath.Glob("../examples/cosbench/*.xml")
	for _, file := range append(files, "../examples/cosbench-80-20.yaml") {
		t.Run(filepath.Base(file), func(t *testing.T) {
			rel, _ := filepath.Rel("..", file)
			r := objbench(t, "..", nil, "run", "--dry-run", "--scale", "0.01", filepath.ToSlash(rel)).mustSucceed(t)
			noSecrets(t, "dry run", r.stdout+r.stderr, fileSecret, "cosbench-access")
			testenv.Golden(t, filepath.Join("testdata", "dryrun-"+filepath.Base(file)+".golden"), []byte(r.stdout))
		})
	}
	if _, err := os.Stat("../objbench-results"); err == nil && !hadResults {
		t.Error("a dry run wrote a result directory")
	}
}

// TestBadWorkloadFilesExitTwoWithEveryProblem: one run lists all of a
// file's mistakes, each with file:line, and touches nothing.
func TestBadWorkloadFilesExitTwoWithEveryProblem(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"bad.yaml", `name: bad
stages:
  - kind: main
    concurrency: 4
    duration: 1s
    sise: 4KiB
    ops: {read: 70, stat: 20}
    objects: {prefix: nothing-here/, count: 10}
  - kind: prepare
    objects: {prefix: p/, count: 3}
    size: -1
`, []string{`bad.yaml:6: unknown field "sise" in a stage (did you mean "size"?)`, "bad.yaml:3: ", "ratios sum to 90, want 100",
			`bad.yaml:7: stage 1 (main) stream 1 (main): reads objects under "nothing-here/", but none exist there`, "bad.yaml:11: size: ", "-1"}},
		{"swift.xml", `<workload name="w"><storage type="swift" config=""/><workflow>
<workstage name="main"><work name="m" workers="1" runtime="1"><operation type="read" ratio="100" config="containers=c(1);objects=c(1)"/></work></workstage>
</workflow></workload>`, []string{`swift.xml:1: storage type "swift" is not supported`}},
		{"ratio.xml", `<workload name="w"><workflow>
<workstage name="main"><work name="m" workers="1">
<operation type="read" ratio="60" config="containers=c(1);objects=c(1)"/>
<operation type="fly" ratio="40"/></work></workstage></workflow></workload>`, []string{`ratio.xml:2: work "m" has no limit`, `ratio.xml:4: operation type "fly"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, c.name), []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			r := objbench(t, dir, nil, "run", c.name)
			if r.code != 2 {
				t.Fatalf("exit %d, want 2:\n%s", r.code, r.stderr)
			}
			for _, want := range c.want {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("a rejected workload left files: %v", entries)
			}
		})
	}
}
