package e2e_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/objbench/objbench/s3server"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// resultsServer is the embedded server with a bucket under test (bench)
// and a results bucket, and stores for both.
type resultsServer struct {
	endpoint       string
	env            []string
	bench, results *s3.Store
}

// startResultsServer serves the embedded server's handler; deny, when set,
// answers 403 AccessDenied to every write to the results bucket (a key
// that may read it, not write), as S3 does.
func startResultsServer(t *testing.T, denyResultWrites bool) resultsServer {
	t.Helper()
	ctx := context.Background()
	const ak, sk = "results-ak", "results-sk"
	h, err := s3server.NewHandler(ctx, s3server.Config{AccessKey: ak, SecretKey: sk, Buckets: []string{"bench", "results"}})
	if err != nil {
		t.Fatal(err)
	}
	front := h
	if denyResultWrites {
		front = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if (r.Method == http.MethodPut || r.Method == http.MethodDelete) && strings.HasPrefix(r.URL.Path, "/results/") {
				w.Header().Set("Content-Type", "application/xml")
				w.WriteHeader(http.StatusForbidden)
				_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`))
				return
			}
			h.ServeHTTP(w, r)
		})
	}
	srv := httptest.NewServer(front)
	t.Cleanup(srv.Close)
	open := func(bucket string) *s3.Store {
		st, err := s3.New(ctx, s3.Config{Endpoint: srv.URL, Bucket: bucket, PathStyle: true, AccessKey: ak, SecretKey: sk, Region: "us-east-1"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	return resultsServer{endpoint: srv.URL, env: []string{"AWS_ACCESS_KEY_ID=" + ak, "AWS_SECRET_ACCESS_KEY=" + sk, "AWS_REGION=us-east-1"},
		bench: open("bench"), results: open("results")}
}

// dirEntries lists what a directory holds.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// A results bucket that is missing, or that these credentials may not
// write, is found before any load: exit 2 naming it, and the bucket under
// test untouched (--no-cleanup would have kept any object written).
func TestResultsBucketIsCheckedBeforeAnyLoad(t *testing.T) {
	for _, c := range []struct {
		name, out, want string
		deny            bool
	}{
		{"missing", "s3://no-such-bucket/runs/", "bucket no-such-bucket does not exist", false},
		{"read-only", "s3://results/runs/", "may not write and delete in bucket results", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := startResultsServer(t, c.deny)
			dir := t.TempDir()
			r := objbench(t, dir, s.env, "put", "--endpoint-url", s.endpoint, "--bucket", "bench", "--ops", "40", "-c", "2",
				"--size", "4KiB", "--no-cleanup", "--run-id", "rb-"+c.name, "--out", c.out)
			if r.code != 2 || !strings.Contains(r.stderr, c.out) || !strings.Contains(r.stderr, c.want) {
				t.Errorf("exit %d, want 2 with %s and %q:\n%s", r.code, c.out, c.want, r.stderr)
			}
			if left := listAll(t, s.bench); len(left) != 0 {
				t.Errorf("the run sent load before the results bucket was checked: %d objects in bench", len(left))
			}
			if left := listAll(t, s.results); len(left) != 0 {
				t.Errorf("the results bucket holds %v", left)
			}
			if names := dirEntries(t, dir); len(names) != 0 {
				t.Errorf("the working directory holds %v", names)
			}
		})
	}
}

// With --out s3://... the result goes to the bucket alone: nothing is
// written in the working directory, and no probe stays in the bucket. A
// second run with the same run id is refused before any load and the
// first result is kept. --out given twice keeps a local copy too.
func TestResultGoesOnlyWhereOutSays(t *testing.T) {
	s := startResultsServer(t, false)
	dir := t.TempDir()
	args := []string{"put", "--endpoint-url", s.endpoint, "--bucket", "bench", "--ops", "40", "-c", "2", "--size", "4KiB",
		"--run-id", "only-out", "--out", "s3://results/runs/"}
	r := objbench(t, dir, s.env, args...).mustSucceed(t)
	if !strings.Contains(r.stderr, "result: s3://results/runs/only-out.json") {
		t.Errorf("stderr does not say where the result went:\n%s", r.stderr)
	}
	if names := dirEntries(t, dir); len(names) != 0 {
		t.Errorf("the run wrote %v in its working directory", names)
	}
	if got := listAll(t, s.results); len(got) != 1 || got[0] != "runs/only-out.json" {
		t.Fatalf("the results bucket holds %v; want the one result", got)
	}
	var first bytes.Buffer
	if _, err := s.results.Get(context.Background(), "runs/only-out.json", storage.GetOptions{}, &first); err != nil {
		t.Fatal(err)
	}

	again := objbench(t, dir, s.env, append(args, "--no-cleanup")...)
	if again.code != 2 || !strings.Contains(again.stderr, "runs/only-out.json") || !strings.Contains(again.stderr, "new run id") {
		t.Errorf("a second run of one run id: exit %d, want 2 naming the taken key:\n%s", again.code, again.stderr)
	}
	if left := listAll(t, s.bench); len(left) != 0 {
		t.Errorf("the refused run sent load: %d objects in bench", len(left))
	}
	var kept bytes.Buffer
	if _, err := s.results.Get(context.Background(), "runs/only-out.json", storage.GetOptions{}, &kept); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(kept.Bytes(), first.Bytes()) {
		t.Error("the first result was replaced")
	}

	both := append(args[:len(args)-1:len(args)-1], "s3://results/copies/", "--out", "local/")
	objbench(t, dir, s.env, both...).mustSucceed(t)
	if _, err := os.Stat(dir + "/local/only-out.json"); err != nil {
		t.Errorf("--out given twice: no local copy: %v", err)
	}
	if _, err := s.results.Stat(context.Background(), "copies/only-out.json"); err != nil {
		t.Errorf("--out given twice: no upload: %v", err)
	}
}
