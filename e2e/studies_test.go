package e2e_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/testenv"
)

// TestStudiesAtSmallScale runs the README's "Studies" commands against a
// real MinIO (and file targets in temporary directories), scaled down.
// The transfer-tool shoot-out has its own test (objbench tools).
func TestStudiesAtSmallScale(t *testing.T) {
	m, st, flags, env := minioEnv(t)
	dir := t.TempDir()
	ob := func(args ...string) run { return objbench(t, dir, env, args...) }

	t.Run("big-and-small-files-watching-the-machine", func(t *testing.T) {
		for _, src := range []string{"gen:48MiB", "gen:200x64KiB"} {
			r := ob(append([]string{"transfer", src, "s3://bench/transfers/" + src[4:] + "/", "--timeline", "--part-size", "8MiB", "-q"}, flags[:2]...)...).mustSucceed(t)
			for _, want := range []string{"cpu %", "net/s", "MiB/s", "verified: "} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("%s: output lacks %q:\n%s", src, want, r.stdout)
				}
			}
		}
	})

	t.Run("storage-systems", func(t *testing.T) {
		a, b := t.TempDir(), t.TempDir()
		path, _ := filepath.Abs("../examples/storage-systems.yaml")
		before := len(listAll(t, st))
		r := ob("run", path, "--scale", "0.002", "--target", "file://"+a, "--target", "file://"+b,
			"--target", "s3://bench", "--endpoint-url", m.Endpoint, "--fsync", "at-end", "-q", "--out", "ss.json").mustSucceed(t)
		_, table, ok := strings.Cut(r.stdout, "Targets compared (3 of 3 ran)\n")
		if !ok {
			t.Fatalf("no comparison of the three targets:\n%s", r.stdout)
		}
		for _, step := range []string{"tiny", "large"} {
			size := map[string]string{"tiny": "4 KB", "large": "10 MB"}[step]
			for _, target := range []string{"file://" + a, "file://" + b, "s3://bench at " + m.Endpoint} {
				if !containsRow(table, step, "PUT", size, target) {
					t.Errorf("no %s row of %s for %s in:\n%s", step, size, target, table)
				}
			}
		}
		// 500,000 tiny and 1,000 large writes to a file system, 500 and
		// 100 to S3, scaled by 0.002 (rounded up).
		for i, want := range [][2]int64{{1000, 2}, {1000, 2}, {1, 1}} {
			res := readResult(t, filepath.Join(dir, fmt.Sprintf("ss-%d.json", i+1)))
			if ops, ok, _ := mainOps(res, "PUT"); ops != want[0]+want[1] || ok != ops {
				t.Errorf("target %d: %d of %d PUTs ok, want %d tiny + %d large", i+1, ok, ops, want[0], want[1])
			}
			if res.Target.Kind == "fs" && (res.Steps[0].Synced <= 0 || res.Steps[1].Synced <= 0) {
				t.Errorf("target %d (%s): --fsync at-end with the file did not sync (%v, %v)", i+1, res.Target.Root, res.Steps[0].Synced, res.Steps[1].Synced)
			}
		}
		if after := len(listAll(t, st)); after != before {
			t.Errorf("MinIO holds %d objects after the run, %d before", after, before)
		}
	})

	t.Run("mailbench-on-a-git-corpus", func(t *testing.T) {
		var emails []string
		for i := range 40 {
			emails = append(emails, fmt.Sprintf("From: user%d@example.invalid\nSubject: %d\n\n%s\n", i, i, strings.Repeat("text ", 10*i)))
		}
		repo := testenv.GitRepo(t, emails)
		r := ob(append([]string{"transfer", "--from-git", repo, "--max-objects", "30", "s3://bench/mail/", "-q"}, flags[:2]...)...).mustSucceed(t)
		if !strings.Contains(r.stdout, "verified: 30 objects") {
			t.Errorf("corpus upload:\n%s", r.stdout)
		}
		ob(append([]string{"get", "--no-prepare", "--prefix", "mail/", "--ops", "200", "-c", "4", "-q", "--out", "mg.json"}, flags...)...).mustSucceed(t)
		if ops, ok, _ := mainOps(readResult(t, filepath.Join(dir, "mg.json")), "GET"); ops != 200 || ok != 200 {
			t.Errorf("GET of the corpus by listing: %d of %d ok", ok, ops)
		}
		ob(append([]string{"delete", "--from-git", repo, "-c", "1,4", "-q", "--out", "md.json"}, flags...)...).mustSucceed(t)
		if ops, ok, _ := mainOps(readResult(t, filepath.Join(dir, "md.json")), "DELETE"); ops != 80 || ok != 80 {
			t.Errorf("DELETE of the corpus, two steps of 40 blobs: %d of %d ok", ok, ops)
		}
		n := 0
		for _, k := range listAll(t, st) {
			if strings.HasPrefix(k, "mail/") {
				n++
			}
		}
		if n != 30 {
			t.Errorf("the uploaded corpus holds %d objects after the delete run, want its 30: a run deletes only its own", n)
		}
	})
}

// containsRow reports whether a table line holds all the fields, in order.
func containsRow(table string, fields ...string) bool {
	for line := range strings.Lines(table) {
		rest, ok := line, true
		for _, f := range fields {
			i := strings.Index(rest, f)
			if i < 0 {
				ok = false
				break
			}
			rest = rest[i+len(f):]
		}
		if ok {
			return true
		}
	}
	return false
}
