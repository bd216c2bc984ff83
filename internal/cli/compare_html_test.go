package cli_test

import (
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/cli"
)

func TestCompareHTML(t *testing.T) {
	dir := t.TempDir()
	base := writeRun(t, dir, "base.json", 2*time.Millisecond)
	slow := writeRun(t, dir, "slow.json", 3*time.Millisecond)
	page := filepath.Join(dir, "cmp.html")

	code, out, errs := execute(t, nil, "compare", "--html", page, base, slow)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "slow.json") || !strings.Contains(out, "+50.0% ?") {
		t.Errorf("compare --html no longer prints the table:\n%s", out)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<!DOCTYPE html>", "<svg", "Throughput per op", "GET: latency distribution",
		"GET: throughput (MiB/s) and operations per second", "base.json", "slow.json", "-33.", `<table class="compare">`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// Every cell compare printed is a cell of the page's table.
	text := strings.Join(strings.Fields(html.UnescapeString(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(string(b), " "))), " ")
	_, rows, _ := strings.Cut(out, "ERR\n")
	rows, _, _ = strings.Cut(rows, "latencies in ms")
	for _, cell := range regexp.MustCompile(`\S+(?: \S+)*`).FindAllString(rows, -1) {
		if !strings.Contains(text, cell) {
			t.Errorf("the page's table lacks %q, which compare printed", cell)
		}
	}
	if strings.Contains(string(b), "<pre>STAGE") {
		t.Error("the table is still preformatted text")
	}

	// A crossed threshold still fails the gate, and the page is written.
	os.Remove(page)
	code, out, _ = execute(t, nil, "compare", "--html", page, "--fail-if", "p99>+10%", base, slow)
	if _, err := os.Stat(page); code != 1 || !strings.Contains(out, "FAIL --fail-if p99>+10%") || err != nil {
		t.Errorf("--fail-if with --html: exit %d, page %v, output:\n%s", code, err, out)
	}
}

func TestCompareHTMLUnwritable(t *testing.T) {
	dir := t.TempDir()
	base := writeRun(t, dir, "base.json", 2*time.Millisecond)
	out := t.TempDir()
	isDir := filepath.Join(out, "page.html")
	if err := os.Mkdir(isDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(base, "no", "cmp.html"), isDir} {
		code, _, errs := execute(t, nil, "compare", "--html", path, base, base)
		if code != cli.ExitUsage || !strings.Contains(errs, "--html "+path) {
			t.Errorf("--html %s: exit %d, stderr %q; want an error naming --html", path, code, errs)
		}
	}
	// Nothing half-written: the directory holds what it held.
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "page.html" || !entries[0].IsDir() {
		t.Errorf("after failed writes the directory holds %v", entries)
	}
}
