package result

import (
	"testing"
	"time"
)

// An emulator that oversleeps its computation (a client short of CPU)
// would count its lateness as computation: the AU at the computation
// asked decides, and the step says it was late.
func TestLateComputationDoesNotPassAsUtilisation(t *testing.T) {
	tr := Training{Compute: 10 * time.Millisecond, AUTarget: 0.9, BatchSize: 1,
		Loaders: []Loader{{Steps: 11, Compute: 300 * time.Millisecond, Wall: 330 * time.Millisecond}}}
	if au := tr.AU(); au < 0.90 || au > 0.91 {
		t.Errorf("DLIO's AU %v, want 300/330", au)
	}
	if asked := tr.AUAsked(); asked < 0.30 || asked > 0.31 {
		t.Errorf("AU at the asked computation %v, want 10 x 10 ms / 330 ms", asked)
	}
	if !tr.Late() || tr.Met() || tr.ComputePerStep() != 30*time.Millisecond {
		t.Errorf("late %v, met %v, %v a step", tr.Late(), tr.Met(), tr.ComputePerStep())
	}
	tr.Loaders[0].Compute, tr.Loaders[0].Wall = 101*time.Millisecond, 105*time.Millisecond
	if tr.Late() || !tr.Met() {
		t.Errorf("on time (10.1 ms a step): late %v, met %v", tr.Late(), tr.Met())
	}
}
