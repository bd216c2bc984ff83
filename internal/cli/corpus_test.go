package cli_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/objbench/objbench/corpus"
	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/workload"
)

// totals sums a result's ops, successes and bytes of op in stage kind.
func totals(res *result.Run, kind, op string) (ops, ok, bytes int64) {
	return res.OpTotals(kind, op)
}

// TestGetAndDeleteOnARealCorpus: --from-git prepares the repository's
// blobs (as they are) in the run's namespace, GET reads them by listing,
// DELETE consumes exactly them.
func TestGetAndDeleteOnARealCorpus(t *testing.T) {
	emails := []string{"From: a\n\nshort\n", "From: b\n\n" + string(make([]byte, 9000)) + "\n", "From: c\n\nthird\n", "From: d\n\nfourth one\n", "From: e\n\nfifth\n"}
	repo := testenv.GitRepo(t, emails)
	items, err := corpus.FromGit(context.Background(), repo, 4)
	if err != nil {
		t.Fatal(err)
	}
	want := items.Bytes()
	_ = items.Close()

	out := filepath.Join(t.TempDir(), "g.json")
	if code, _, errs := execute(t, nil, "get", "--from-git", repo, "--max-objects", "4", "--ops", "40", "-c", "2", "-q", "--out", out); code != 0 {
		t.Fatalf("get --from-git: exit %d\n%s", code, errs)
	}
	res, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if ops, ok, bytes := totals(res, "prepare", "PUT"); ops != 4 || ok != 4 || bytes != want {
		t.Errorf("prepare wrote %d objects (%d ok), %d bytes; want the 4 blobs, %d bytes", ops, ok, bytes, want)
	}
	if ops, ok, _ := totals(res, "main", "GET"); ops != 40 || ok != 40 {
		t.Errorf("GET: %d of %d ok, want 40 of 40", ok, ops)
	}
	var spec workload.Spec
	if err := json.Unmarshal(res.Spec, &spec); err != nil {
		t.Fatal(err)
	}
	if spec.Stages[0].Streams[0].Objects.Source != "git:"+repo {
		t.Errorf("the result's spec does not name the corpus: %+v", spec.Stages[0].Streams[0].Objects)
	}

	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{"cur/1": "one", "cur/2": "two!", "new/3": "three", "new/x/4": "four4"})
	out = filepath.Join(t.TempDir(), "d.json")
	if code, _, errs := execute(t, nil, "delete", "--from-dir", dir, "-c", "2", "-q", "--out", out); code != 0 {
		t.Fatalf("delete --from-dir: exit %d\n%s", code, errs)
	}
	if res, err = result.Read(out); err != nil {
		t.Fatal(err)
	}
	if ops, ok, _ := totals(res, "main", "DELETE"); ops != 4 || ok != 4 {
		t.Errorf("DELETE: %d of %d ok, want the tree's 4 files", ok, ops)
	}
}

func TestCorpusFlagsUsage(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"get", "--from-dir", filepath.Join(dir, "missing")},         // no such tree
		{"stat", "--from-git", dir},                                  // no repository
		{"get", "--from-dir", dir, "--from-git", dir},                // both
		{"get", "--max-objects", "3"},                                // no corpus
		{"get", "--from-dir", dir, "--objects", "3"},                 // count twice
		{"get", "--from-dir", dir, "--no-prepare", "--prefix", "p/"}, // nothing to prepare
		{"put", "--from-dir", dir},                                   // PUT writes generated data
	} {
		if code, _, errs := execute(t, nil, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errs)
		}
	}
}
