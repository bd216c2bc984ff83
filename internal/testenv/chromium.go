package testenv

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Chromium is a headless Chromium a test renders pages with.
type Chromium struct {
	bin     string
	profile string
}

// FindChromium finds Debian's chromium ($OBJBENCH_CHROMIUM, then PATH) or
// skips the test, unless OBJBENCH_REQUIRE_CHROMIUM is set (the test script
// installs chromium and sets it): then a missing browser fails the test.
func FindChromium(tb testing.TB) *Chromium {
	tb.Helper()
	bin := os.Getenv("OBJBENCH_CHROMIUM")
	if bin == "" {
		for _, name := range []string{"chromium", "chromium-browser"} {
			if p, err := exec.LookPath(name); err == nil {
				bin = p
				break
			}
		}
	}
	if bin == "" {
		const how = "install it with `apt-get install -y chromium` (scripts/test.sh does)"
		if os.Getenv("OBJBENCH_REQUIRE_CHROMIUM") != "" {
			tb.Fatalf("chromium is required (OBJBENCH_REQUIRE_CHROMIUM) but not installed: %s", how)
		}
		tb.Skipf("chromium not installed, skipping the browser test: %s", how)
	}
	return &Chromium{bin: bin, profile: tb.TempDir()}
}

// run renders page (a file, or an http:// URL) headless with extra
// flags, for at most a minute, and returns stdout and stderr.
func (c *Chromium) run(ctx context.Context, page string, flags ...string) (string, string, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	target := page // an http:// URL (a live page) as it is, a file by its absolute path
	if !strings.HasPrefix(page, "http://") {
		abs, err := filepath.Abs(page)
		if err != nil {
			return "", "", err
		}
		target = "file://" + abs
	}
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
		"--enable-logging=stderr", "--v=0", "--user-data-dir=" + c.profile}, flags...)
	cmd := exec.CommandContext(ctx, c.bin, append(args, target)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), errb.String(), fmt.Errorf("chromium: %w\n%s", err, errb.String())
	}
	return out.String(), errb.String(), nil
}

// Screenshot renders page into a PNG of w×h pixels and returns chromium's
// log (console messages included).
func (c *Chromium) Screenshot(ctx context.Context, page, png string, w, h int) (string, error) {
	_, log, err := c.run(ctx, page, "--screenshot="+png, fmt.Sprintf("--window-size=%d,%d", w, h), "--hide-scrollbars")
	return log, err
}

// DumpDOM renders page and returns its DOM after layout, and the log.
func (c *Chromium) DumpDOM(ctx context.Context, page string) (string, string, error) {
	return c.run(ctx, page, "--dump-dom")
}
