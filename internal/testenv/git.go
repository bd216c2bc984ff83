package testenv

import (
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
