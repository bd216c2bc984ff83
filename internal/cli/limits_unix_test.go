//go:build unix

package cli_test

import (
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// More workers than the process may open connections for is refused
// before any I/O, naming the limit: never silently clamped.
func TestConcurrencyAboveTheOpenFileLimitIsRefused(t *testing.T) {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Skip(err)
	}
	low := lim
	low.Cur = 1000
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &low); err != nil {
		t.Skip(err)
	}
	defer func() { _ = unix.Setrlimit(unix.RLIMIT_NOFILE, &lim) }()
	code, out, errs := execute(t, nil, "get", "-c", "2000", "--duration", "1s")
	if code != 2 || !strings.Contains(errs, "may open 1000") || !strings.Contains(errs, "ulimit -n") || out != "" {
		t.Errorf("exit %d, %q: want 2 naming the open-file limit, nothing run", code, errs)
	}
}

func TestConcurrencyAboveTheHardCapIsRefused(t *testing.T) {
	code, _, errs := execute(t, nil, "get", "-c", "100001", "--duration", "1s")
	if code != 2 || !strings.Contains(errs, "at most 100000 workers") {
		t.Errorf("exit %d, %q", code, errs)
	}
}
