package shootout

import (
	"strings"
	"testing"
)

// A secret cut in two by the tail's front edge must not leave its end in
// what a failed run shows.
func TestStderrTailHidesACutSecret(t *testing.T) {
	secret := "wJalrXUtnFEMI/K7MDENG/bPxRfiCYSECRETKEY"
	for cut := 1; cut < len(secret); cut += 7 {
		tail := &tailBuffer{max: 64}
		// The kept 64 bytes start inside the secret, cut bytes into it.
		line := "error: bad signature for key " + secret + " at https://x\n"
		keep := len(secret) - cut + len(" at https://x\n")
		_, _ = tail.Write([]byte(strings.Repeat("noise line\n", 3) + line + strings.Repeat("y", 64-keep-len("second line\n")) + "second line\n"))
		got := scrub(tail.String(), []string{secret})
		if strings.Contains(got, secret[cut:]) || strings.Contains(got, secret[len(secret)-6:]) {
			t.Errorf("cut %d: the tail shows part of the secret: %q", cut, got)
		}
		if !strings.Contains(got, "second line") {
			t.Errorf("cut %d: the tail lost its last line: %q", cut, got)
		}
	}
	whole := &tailBuffer{max: 1024}
	_, _ = whole.Write([]byte("first\nkey " + secret + "\n"))
	if got := scrub(whole.String(), []string{secret}); got != "first\nkey ***" {
		t.Errorf("an uncut tail: %q", got)
	}
}
