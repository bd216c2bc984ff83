package merge

import (
	"testing"
	"time"

	"github.com/objbench/objbench/result"
)

// A merge puts the workers' accelerators and ranks side by side (each
// worker ran its own) and adds the scans' counts: a merged run's AU is
// the mean over every accelerator, a checkpoint lasts until the slowest
// rank of any worker was done.
func TestMergeAIFigures(t *testing.T) {
	h := result.NewHistogram()
	_ = h.RecordValue(1000)
	scan := result.EncodeHistogram(h)
	part := func(rank int, au float64, elapsed time.Duration) *result.Step {
		return &result.Step{
			Training: []result.Training{{Model: "m", Accelerator: "h100", Accelerators: 2, Epoch: 1, BatchSize: 1, AUTarget: 0.9,
				Loaders: []result.Loader{{Accelerator: rank, Steps: 3, Compute: time.Duration(au * float64(time.Second)), Wall: time.Second}}}},
			Checkpoint: &result.Checkpoint{Model: "llama", Op: "save", Index: 1, Ranks: 2, Scale: 1, Bytes: 200, Objects: 2,
				Rank: []result.RankIO{{Rank: rank, Objects: 1, Bytes: 100, Elapsed: elapsed}}},
			Lake: &result.Lake{Files: 4, FileBytes: 10, RowGroups: 1, Columns: 2, Projected: 1, Queries: 1, Requests: 3, BytesRead: 5, BytesScanned: 10, Scan: scan},
		}
	}
	var out result.Step
	if err := mergeAI(&out, []*result.Step{part(1, 0.5, 3*time.Second), part(0, 1, time.Second)}); err != nil {
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
	if err := mergeAI(&out, []*result.Step{part(0, 1, time.Second), other}); err == nil {
		t.Error("epochs 1 and 2 of a step merged")
	}
}
