package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/objbench/objbench/corpus"
	"github.com/objbench/objbench/internal/testenv"
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
	want := fmt.Sprintf("verified: 3 objects, %d bytes", corpus.Bytes(items))
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
// transfer's, and every byte moved is in some second of the JSON timeline.
func TestTransferTimeline(t *testing.T) {
	out := filepath.Join(t.TempDir(), "t.json")
	code, stdout, errs := execute(t, nil, "transfer", "gen:4x6MiB", "s3://bench/t/", "--timeline", "-q", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	for _, want := range []string{"cpu %", "disk/s", "net/s", "MiB/s", "verified: 4 objects"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	var rep struct {
		Timeline []struct{ Objects, Bytes int64 }
	}
	raw, err := os.ReadFile(out)
	if err == nil {
		err = json.Unmarshal(raw, &rep)
	}
	if err != nil {
		t.Fatal(err)
	}
	var objs, bytes int64
	for _, s := range rep.Timeline {
		objs, bytes = objs+s.Objects, bytes+s.Bytes
	}
	if len(rep.Timeline) == 0 || objs != 4 || bytes != 4*6<<20 {
		t.Errorf("timeline of %d seconds holds %d objects, %d bytes; want 4, %d", len(rep.Timeline), objs, bytes, 4*6<<20)
	}
}
