package cli_test

import (
	"strings"
	"testing"
)

// A quick selftest prints the client's ceiling and the accounting check
// against the server's record. Timing checks may fail on a loaded machine
// (exit 1, said in words); accounting must hold anywhere.
func TestSelftestQuick(t *testing.T) {
	code, out, errs := execute(t, nil, "selftest", "--checks", "ceiling,accounting", "--duration", "200ms", "--workers", "2")
	if code != 0 && !strings.Contains(errs, "failed") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"Client ceiling", "GET  4KiB", "PUT  4MiB", "MiB/s", "Accounting", "800 issued"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "   ok\n") {
		t.Errorf("the accounting check failed:\n%s", out)
	}
}

func TestSelftestUnknownCheckExitsTwo(t *testing.T) {
	if code, _, errs := execute(t, nil, "selftest", "--checks", "speed"); code != 2 || !strings.Contains(errs, `"speed"`) {
		t.Errorf("exit %d: %s", code, errs)
	}
}
