package result

import (
	"testing"
	"time"
)

// A merge puts the workers' accelerators and ranks side by side (each
// worker ran its own) and adds the scans' counts: a merged run's AU is
// the mean over every accelerator, a checkpoint lasts until the slowest
// rank of any worker was done.
func TestMergeAIFigures(t *testing.T) {
	h := NewHistogram()
	_ = h.RecordValue(1000)
	scan := EncodeHistogram(h)
	part := func(rank int, au float64, elapsed time.Duration) *Step {
		return &Step{
			Training: []Training{{Model: "m", Accelerator: "h100", Accelerators: 2, Epoch: 1, BatchSize: 1, AUTarget: 0.9,
				Loaders: []Loader{{Accelerator: rank, Steps: 3, Compute: time.Duration(au * float64(time.Second)), Wall: time.Second}}}},
			Checkpoint: &Checkpoint{Model: "llama", Op: "save", Index: 1, Ranks: 2, Scale: 1, Bytes: 200, Objects: 2,
				Rank: []RankIO{{Rank: rank, Objects: 1, Bytes: 100, Elapsed: elapsed}}},
			Lake: &Lake{Files: 4, FileBytes: 10, RowGroups: 1, Columns: 2, Projected: 1, Queries: 1, Requests: 3, BytesRead: 5, BytesScanned: 10, Scan: scan},
		}
	}
	var out Step
	if err := mergeAI(&out, []*Step{part(1, 0.5, 3*time.Second), part(0, 1, time.Second)}); err != nil {
		t.Fatal(err)
	}
	tr := out.Training[0]
	if len(tr.Loaders) != 2 || tr.Loaders[0].Accelerator != 0 || tr.AU() != 0.75 || tr.Met() {
		t.Errorf("training: %+v, AU %v", tr.Loaders, tr.AU())
	}
	c := out.Checkpoint
	if len(c.Rank) != 2 || c.Duration() != 3*time.Second || c.Moved() != 200 {
		t.Errorf("checkpoint: %+v, duration %v", c.Rank, c.Duration())
	}
	if q, slow := c.RankQuantile(0.99); q != 3*time.Second || slow != 1 {
		t.Errorf("p99 %v, slowest rank %d; want 3 s and rank 1", q, slow)
	}
	l := out.Lake
	p, err := l.ScanPercentiles()
	if l.Queries != 2 || l.Requests != 6 || l.BytesRead != 10 || err != nil || p.Count != 2 {
		t.Errorf("lake: %+v, scans %+v %v", l, p, err)
	}
	other := part(2, 1, time.Second)
	other.Training[0].Epoch = 2
	if err := mergeAI(&out, []*Step{part(0, 1, time.Second), other}); err == nil {
		t.Error("epochs 1 and 2 of a step merged")
	}
}

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
