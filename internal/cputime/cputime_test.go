package cputime

import (
	"testing"
	"time"
)

// Work done shows in the process's CPU time: spinning until 10 ms of it
// have been counted ends well before 10 s of wall time unless Process is
// broken (however loaded the machine).
func TestProcessCountsWork(t *testing.T) {
	u0, s0 := Process()
	x := uint64(1)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		for range 100000 {
			x = x*6364136223846793005 + 1442695040888963407
		}
		if u, s := Process(); u+s-u0-s0 >= 10*time.Millisecond {
			return
		}
	}
	t.Fatalf("10 s of spinning (%d): CPU time stayed at %v", x, u0+s0)
}
