package testenv

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// GitRepo commits each of contents in turn as the file "m" of a fresh git
// repository, as a public-inbox archive commits one email at a time, and
// returns the repository's directory. It skips the test where git is
// missing (scripts/test.sh runs on machines that have it).
func GitRepo(tb testing.TB, contents []string) string {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		tb.Skip("no git command here (apt-get install git)")
	}
	dir := tb.TempDir()
	git := func(args ...string) {
		tb.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=objbench", "-c", "user.email=objbench@example.invalid"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			tb.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	for i, c := range contents {
		if err := os.WriteFile(filepath.Join(dir, "m"), []byte(c), 0o644); err != nil {
			tb.Fatal(err)
		}
		git("add", "m")
		git("commit", "-q", "-m", fmt.Sprintf("email %d", i+1))
	}
	return dir
}

// GitBlobs makes a bare repository holding n blobs of size bytes each
// (distinct, incompressible-ish text), written with one git fast-import,
// and returns its directory. It skips the test where git is missing.
func GitBlobs(tb testing.TB, n, size int) string {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		tb.Skip("no git command here (apt-get install git)")
	}
	dir := tb.TempDir()
	if out, err := exec.Command("git", "init", "-q", "--bare", dir).CombinedOutput(); err != nil {
		tb.Fatalf("git init: %v\n%s", err, out)
	}
	var stream bytes.Buffer
	body := make([]byte, size)
	x := uint64(1)
	for i := range n {
		for j := range body {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			body[j] = 'a' + byte(x%26)
		}
		copy(body, fmt.Sprintf("%d\n", i))
		fmt.Fprintf(&stream, "blob\ndata %d\n", size)
		stream.Write(body)
		stream.WriteByte('\n')
	}
	cmd := exec.Command("git", "-C", dir, "fast-import", "--quiet")
	cmd.Stdin = &stream
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("git fast-import: %v\n%s", err, out)
	}
	return dir
}
