package clidoc

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The committed reference must be what the commands say now: a help text
// changed without regenerating fails here, with the command that fixes it.
func TestCommittedReferenceIsCurrent(t *testing.T) {
	problems, err := Stale(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) > 0 {
		t.Fatalf("the CLI reference in %s and %s is stale; from the repository root run\n\n\t%s\n\nand commit the result. Differences:\n\t%s",
			MarkdownDir, ManDir, Refresh, strings.Join(problems, "\n\t"))
	}
}

// Generate must give the same bytes however the machine or the environment
// differ, or the committed reference would be stale on the next machine.
func TestGenerateIgnoresTheEnvironment(t *testing.T) {
	first, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:1")
	t.Setenv("AWS_CA_BUNDLE", "/nonexistent/ca.pem")
	t.Setenv("SOURCE_DATE_EPOCH", "1")
	t.Setenv("HOME", t.TempDir())
	procs := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(procs + 3) // a default drawn from the CPUs would change
	defer runtime.GOMAXPROCS(procs)
	second, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != len(second) {
		t.Fatalf("%d pages, then %d", len(first), len(second))
	}
	for p, b := range first {
		if !bytes.Equal(b, second[p]) {
			t.Errorf("%s differs between two generations", p)
		}
	}
}

// Every command has both pages, and the root's page links each command's.
func TestEveryCommandHasBothPages(t *testing.T) {
	files, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	root, ok := files[MarkdownDir+"/objbench.md"]
	if !ok {
		t.Fatal("no page for objbench itself")
	}
	for p := range files {
		if !strings.HasPrefix(p, MarkdownDir+"/") {
			continue
		}
		name := strings.TrimSuffix(strings.TrimPrefix(p, MarkdownDir+"/"), ".md")
		man := ManDir + "/" + strings.ReplaceAll(name, "_", "-") + ".1"
		if _, ok := files[man]; !ok {
			t.Errorf("%s has no man page %s", p, man)
		}
		if name != "objbench" && strings.Count(name, "_") == 1 && !bytes.Contains(root, []byte("("+name+".md)")) {
			t.Errorf("objbench.md does not link %s.md", name)
		}
	}
}

// Write removes pages of commands that are gone and leaves other files.
func TestWriteRemovesPagesOfGoneCommands(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{MarkdownDir + "/objbench_gone.md", ManDir + "/objbench-gone.1", MarkdownDir + "/notes.txt"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := Write(dir); err != nil {
		t.Fatal(err)
	}
	problems, err := Stale(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) > 0 {
		t.Fatalf("after Write: %v", problems)
	}
	if _, err := os.Stat(filepath.Join(dir, MarkdownDir, "notes.txt")); err != nil {
		t.Errorf("a file that is not a page was removed: %v", err)
	}
}
