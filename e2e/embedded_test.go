package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/objbench/objbench/result"
)

func TestRunOnEmbeddedServerPrintsTableAndWritesResult(t *testing.T) {
	dir := t.TempDir()
	r := objbench(t, dir, nil, "run", "--duration", "2s", "--concurrency", "4").mustSucceed(t)
	if !strings.Contains(r.stderr, "embedded S3 server") {
		t.Errorf("stderr does not say an embedded server was used:\n%s", r.stderr)
	}
	if !strings.Contains(r.stdout, "OP   CONC  OPS/S") && !strings.Contains(r.stdout, "OPS/S") {
		t.Fatalf("no table header in:\n%s", r.stdout)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "objbench-results", "*.json"))
	if len(files) != 1 {
		t.Fatalf("want one result file under objbench-results/, got %v", files)
	}
	res := readResult(t, files[0])
	if res.Schema != result.Version || !res.Target.Embedded || res.Interrupted || !res.CleanedUp {
		t.Errorf("schema=%d embedded=%v interrupted=%v cleaned=%v", res.Schema, res.Target.Embedded, res.Interrupted, res.CleanedUp)
	}
	for _, op := range []string{"PUT", "GET", "STAT", "DELETE", "LIST"} {
		ops, ok, _ := mainOps(res, op)
		if ok == 0 || ops != ok {
			t.Errorf("%s: %d ops, %d ok; want some, all ok", op, ops, ok)
		}
		if !strings.Contains(r.stdout, "main     "+op) && !strings.Contains(r.stdout, " "+op+" ") {
			t.Errorf("table has no %s row:\n%s", op, r.stdout)
		}
	}
	again := objbench(t, dir, nil, "report", files[0]).mustSucceed(t)
	if again.stdout != r.stdout {
		t.Errorf("report from the file differs from the run's table:\nrun:\n%s\nreport:\n%s", r.stdout, again.stdout)
	}
}

func TestBadInputExitsTwoAndWritesNothing(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"put", "--size", "4XB"}, `bad size "4XB"`},
		{[]string{"put", "--duration", "ten"}, `invalid argument "ten"`},
		{[]string{"put", "--frobnicate"}, "unknown flag: --frobnicate"},
		{[]string{"get", "--concurrency", "4,0"}, `bad value "0"`},
		{[]string{"mixed", "--mix", "get=x"}, `bad entry "get=x"`},
		{[]string{"mixed", "--mix", "fly=1", "--ops", "1"}, `unknown operation "fly"`},
		{[]string{"put", "--target", "ftp://x"}, `bad --target "ftp://x"`},
		{[]string{"put", "--endpoint-url", "localhost:9000", "--bucket", "bench"}, `bad --endpoint-url "localhost:9000"`},
		{[]string{"put", "--endpoint-url", "http://127.0.0.1:1", "--bucket", "b"}, "3 to 63 characters"},
		{[]string{"get", "--no-prepare"}, "--no-prepare needs --prefix"},
		{[]string{"delete", "--no-prepare", "--prefix", "x/"}, "only ever read"},
		{[]string{"report", "missing.json"}, "missing.json"},
		{[]string{"frobnicate"}, "unknown command"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			dir := t.TempDir()
			r := objbench(t, dir, nil, c.args...)
			if r.code != 2 || !strings.Contains(r.stderr, c.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and %q", r.code, r.stderr, c.want)
			}
			if strings.Contains(r.stderr, "goroutine ") || strings.Count(strings.TrimSpace(r.stderr), "\n") > 3 {
				t.Errorf("want a short message, got:\n%s", r.stderr)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("bad input left files behind: %v", entries)
			}
		})
	}
}

func TestFileTargetMeasuresAndCleansOnlyItsOwnFiles(t *testing.T) {
	dir, data := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(data, "keep.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, op := range []string{"put", "get", "stat", "delete", "list"} {
		out := filepath.Join(dir, op+".json")
		objbench(t, dir, nil, op, "--target", "file://"+data, "--ops", "60", "--size", "8KiB",
			"--objects", "30", "--concurrency", "1,3", "--fsync", "per-file", "--out", out).mustSucceed(t)
		ops, ok, bytes := mainOps(readResult(t, out), strings.ToUpper(op))
		if ok != 120 && !(op == "delete" && ok == 60) {
			t.Errorf("%s: %d ok of %d ops; want 60 per step", op, ok, ops)
		}
		if (op == "put" || op == "get") && bytes != ok*8192 {
			t.Errorf("%s moved %d bytes for %d ops of 8 KiB", op, bytes, ok)
		}
	}
	entries, _ := os.ReadDir(data)
	if len(entries) != 1 || entries[0].Name() != "keep.txt" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("after the runs the directory holds %v; want only keep.txt", names)
	}
}
