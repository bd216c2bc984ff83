//go:build unix

package cli_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/objbench/objbench/internal/cli"
	"github.com/objbench/objbench/result"
)

// Every output path of a run is checked before any work: a path that
// cannot be written (here below a regular file, or a directory) ends the
// command with exit 2 naming the flag and the path, and the target was
// never touched (no object written, no result file).
func TestEveryOutputIsCheckedBeforeTheRun(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	below := filepath.Join(file, "x")
	for _, flag := range []string{"--out", "--csv", "--html", "--op-log", "--cosbench-csv", "--cpuprofile", "--memprofile"} {
		for _, bad := range []string{below, dir} {
			if bad == dir && flag == "--cosbench-csv" {
				continue // a directory is what it wants
			}
			store := t.TempDir()
			out := filepath.Join(t.TempDir(), "r.json")
			args := []string{"run", "--target", "file://" + store, "--ops", "20", "--concurrency", "2", "--size", "1KiB", "-q"}
			if flag != "--out" {
				args = append(args, "--out", out)
			}
			code, _, errs := execute(t, nil, append(args, flag, bad)...)
			if code != cli.ExitUsage || !strings.Contains(errs, flag+" "+bad) {
				t.Errorf("%s %s: exit %d, stderr %q; want 2 naming the flag and path", flag, bad, code, errs)
			}
			if entries, _ := os.ReadDir(store); len(entries) > 0 {
				t.Errorf("%s %s: the store holds %d entries: the run started", flag, bad, len(entries))
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s %s: a result file was written", flag, bad)
			}
		}
	}
}

// Outputs given as a device node, a symbolic link or a pipe's reader are
// written as what they are: the node stays a node, the link a link (the
// file it names gets the result).
func TestOutputsAreWrittenThroughNotReplaced(t *testing.T) {
	dir := t.TempDir()
	node := filepath.Join(dir, "node")
	if err := unix.Mknod(node, unix.S_IFCHR|0o644, int(unix.Mkdev(1, 3))); err != nil {
		t.Skipf("cannot make a device node here (needs CAP_MKNOD): %v", err)
	}
	real := filepath.Join(dir, "real.json")
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink("real.json", link); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "page-link.html")
	if err := os.Symlink("node", page); err != nil {
		t.Fatal(err)
	}
	code, _, errs := execute(t, nil, "put", "--target", "file://"+t.TempDir(), "--ops", "20", "-q",
		"--out", link, "--csv", node, "--html", page)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for p, want := range map[string]fs.FileMode{node: fs.ModeCharDevice | fs.ModeDevice, link: fs.ModeSymlink, page: fs.ModeSymlink} {
		if fi, err := os.Lstat(p); err != nil || fi.Mode().Type() != want {
			t.Errorf("%s: %v (%v); want it still of type %v", p, fi.Mode().Type(), err, want)
		}
	}
	if _, err := result.Read(real); err != nil {
		t.Errorf("the file the link names holds no result: %v", err)
	}
}
