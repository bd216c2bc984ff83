package cli_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/objbench/objbench/corpus"
	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/result"
)

func TestTransferOutOfTheBox(t *testing.T) {
	code, out, errs := execute(t, nil, "transfer", "gen:3x6MiB", "s3://mybucket/p/", "--part-size", "5MiB", "-q")
	if code != 0 || !strings.Contains(out, "verified: 3 objects, 18874368 bytes") || !strings.Contains(out, "RETRIES") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
}

func TestTransferUsage(t *testing.T) {
	for _, args := range [][]string{
		{"transfer", "gen:1KiB", "./here"},
		{"transfer", "s3://a/b", "s3://c/d"},
		{"transfer", "gen:1KiB", "s3://b/p", "--part-size", "1MiB"},
		{"transfer", "gen:1KiB", "s3://b/p", "--workers", "-1"},
		{"transfer", "gen:0x1KiB", "s3://bkt/p"},
		{"transfer", "gen:1KiB", "s3://bkt/p", "--target", "s3://bkt"},
		{"transfer", "gen:1KiB", "s3://bkt/p", "--bucket", "other", "--endpoint-url", "http://127.0.0.1:1"},
	} {
		if code, _, errs := execute(t, nil, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errs)
		}
	}
}

func TestTransferCorpora(t *testing.T) {
	emails := []string{"From: a\n\none\n", "From: b\n\ntwo, a little longer\n", "From: c\n\nthree\n", "From: d\n\nfour\n"}
	repo := testenv.GitRepo(t, emails)
	// Blobs are taken in id order, so which three is not the commit order:
	// count and bytes of the first three blob ids.
	items, err := corpus.FromGit(context.Background(), repo, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("verified: 3 objects, %d bytes", items.Bytes())
	_ = items.Close()
	code, out, errs := execute(t, nil, "transfer", "--from-git", repo, "--max-objects", "3", "s3://mail/inbox/", "-q")
	if code != 0 || !strings.Contains(out, want) {
		t.Fatalf("--from-git: exit %d, want %q\n%s\n%s", code, want, out, errs)
	}

	dir := t.TempDir()
	all, files := 0, map[string]string{}
	for i, e := range emails {
		files[fmt.Sprintf("cur/%d.eml", i)] = e
		all += len(e)
	}
	testenv.WriteFiles(t, dir, files)
	code, out, errs = execute(t, nil, "transfer", "--from-dir", dir, "s3://mail/maildir/", "-q")
	if want := fmt.Sprintf("verified: %d objects, %d bytes", len(emails), all); code != 0 || !strings.Contains(out, want) {
		t.Fatalf("--from-dir: exit %d, want %q\n%s\n%s", code, want, out, errs)
	}
}

func TestTransferCorpusUsage(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"transfer", "--from-dir", dir, "--from-git", dir, "s3://b/p/"},
		{"transfer", "--from-dir", dir, "gen:1KiB", "s3://b/p/"},
		{"transfer", "--from-dir", dir, "s3://b/p/"}, // an empty tree
		{"transfer", "--from-git", dir, "s3://b/p/"}, // no repository
		{"transfer", "gen:1KiB", "s3://b/p/", "--max-objects", "-1"},
		{"transfer", "s3://b/p/"},
	} {
		if code, _, errs := execute(t, nil, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errs)
		}
	}
}

// TestTransferTimeline: --timeline prints the machine's seconds beside the
// transfer's requests, with their p99 and the machine's paging, and every
// byte moved is in some second of the result file's stream.
func TestTransferTimeline(t *testing.T) {
	out := filepath.Join(t.TempDir(), "t.json")
	code, stdout, errs := execute(t, nil, "transfer", "gen:4x6MiB", "s3://bench/t/", "--part-size", "5MiB", "--timeline", "-q", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	for _, want := range []string{"cpu %", "disk/s", "net/s", "paging/s", "MiB/s", "p99ms", "verified: 4 objects", "verdict"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	res, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Steps) != 1 || res.Steps[0].Transfer == nil || res.System == nil || len(res.System.Verdicts) != 1 {
		t.Fatalf("result: %d steps, system %v", len(res.Steps), res.System != nil)
	}
	st := res.Steps[0]
	var reqs, bytes int64
	for _, sec := range st.Streams[0].Seconds {
		for _, o := range sec.Ops {
			reqs, bytes = reqs+o.Ops, bytes+o.Bytes
		}
	}
	if reqs != 8 || bytes != 4*6<<20 || st.Transfer.Objects != 4 || st.Transfer.Parts != 8 || !st.Transfer.Check.Verified {
		t.Errorf("stream holds %d requests, %d bytes; transfer %+v", reqs, bytes, st.Transfer)
	}
	// Each timeline row with requests in it has their p99.
	rows := 0
	for line := range strings.Lines(stdout) {
		f := strings.Fields(line)
		if len(f) > 3 && strings.Count(line, "|") >= 7 && strings.Contains(line, ":") && f[len(f)-3] != "0" {
			rows++
			if _, err := strconv.ParseFloat(f[len(f)-1], 64); err != nil {
				t.Errorf("row without a p99: %q", line)
			}
		}
	}
	if rows == 0 {
		t.Errorf("no timeline row with requests:\n%s", stdout)
	}
}

// TestTransferResultIsAResult: a transfer's --out file is read by report
// (its tables and --timeline), report --html, compare and merge; --repeat
// N makes N numbered steps that compare folds into one row.
func TestTransferResultIsAResult(t *testing.T) {
	dir := t.TempDir()
	one, three := filepath.Join(dir, "one.json"), filepath.Join(dir, "three.json")
	for _, args := range [][]string{
		{"transfer", "gen:3x1MiB", "s3://bench/r/", "-q", "--out", one},
		{"transfer", "gen:3x1MiB", "s3://bench/r/", "-q", "--out", three, "--repeat", "3"},
	} {
		if code, stdout, errs := execute(t, nil, args...); code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, stdout, errs)
		}
	}
	res, err := result.Read(three)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Steps) != 3 {
		t.Fatalf("--repeat 3: %d steps", len(res.Steps))
	}
	for i, s := range res.Steps {
		if s.Repetition != i+1 || s.Transfer == nil || s.Transfer.Objects != 3 || !s.Transfer.Check.Verified {
			t.Errorf("step %d: repetition %d, transfer %+v", i, s.Repetition, s.Transfer)
		}
	}
	code, stdout, errs := execute(t, nil, "report", three)
	if code != 0 || !strings.Contains(stdout, "upload #3  PUT") || !strings.Contains(stdout, "repetition 3: verified: 3 objects") {
		t.Errorf("report: exit %d\n%s%s", code, stdout, errs)
	}
	if code, stdout, errs = execute(t, nil, "report", one, "--timeline"); code != 0 || !strings.Contains(stdout, "paging/s") {
		t.Errorf("report --timeline: exit %d\n%s%s", code, stdout, errs)
	}
	html := filepath.Join(dir, "r.html")
	if code, _, errs = execute(t, nil, "report", three, "--html", html); code != 0 {
		t.Errorf("report --html: exit %d\n%s", code, errs)
	} else if b, err := os.ReadFile(html); err != nil || !strings.Contains(string(b), "<svg") {
		t.Errorf("report --html wrote no charts: %v", err)
	}
	code, stdout, errs = execute(t, nil, "compare", one, three)
	table, phases, _ := strings.Cut(stdout, "Where the time goes")
	if code != 0 || strings.Count(table, "upload") != 1 || !strings.Contains(table, "three.json") || strings.Contains(phases, "missing") {
		t.Errorf("compare: exit %d, want one folded upload row\n%s%s", code, stdout, errs)
	}
	merged := filepath.Join(dir, "m.json")
	if code, _, errs = execute(t, nil, "merge", three, "-o", merged); code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, errs)
	}
	m, err := result.Read(merged)
	if err != nil || len(m.Steps) != 3 || m.Steps[2].Transfer == nil || m.Steps[2].Transfer.Objects != 3 {
		t.Errorf("merged: %v", err)
	}
}
