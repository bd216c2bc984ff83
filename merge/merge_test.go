package merge_test

import (
	"math"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/resulttest"
	"github.com/objbench/objbench/merge"
	"github.com/objbench/objbench/result"
)

// The merge of a run's worker files is the run as one process would have
// measured it: the same window (within a tick), rates within 1%, the same
// latency percentiles (HDR precision) and every op counted once.
func TestMergeEqualsOneProcess(t *testing.T) {
	for _, n := range []int{1, 3, 8} {
		parts, whole := resulttest.SplitRun(t, n, 3*time.Second, uint64(n))
		merged, err := merge.Runs(parts, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := merged.Steps[0].Streams[0]
		g, w := got.Totals[0], whole.Totals[0]
		if g.Ops != w.Ops || g.Bytes != w.Bytes {
			t.Errorf("n=%d: merged %d ops %d bytes, one process %d ops %d bytes", n, g.Ops, g.Bytes, w.Ops, w.Bytes)
		}
		if math.Abs(g.OpsPerSec/w.OpsPerSec-1) > 0.01 || math.Abs(g.BytesPerSec/w.BytesPerSec-1) > 0.01 {
			t.Errorf("n=%d: merged %.1f ops/s over %+v, one process %.1f over %+v", n, g.OpsPerSec, got.Window, w.OpsPerSec, whole.Window)
		}
		if math.Abs(got.Window.Start-whole.Window.Start) > 0.0101 || math.Abs(got.Window.End-whole.Window.End) > 0.0101 {
			t.Errorf("n=%d: merged window %+v, one process %+v", n, got.Window, whole.Window)
		}
		if g.Latency != w.Latency {
			t.Errorf("n=%d: merged latency %+v, one process %+v", n, g.Latency, w.Latency)
		}
		if merged.Partial() != "" || len(merged.Workers.Parts) != n || merged.Steps[0].Streams[0].Concurrency != 2*n {
			t.Errorf("n=%d: partial %q, %d parts, concurrency %d", n, merged.Partial(), len(merged.Workers.Parts), got.Concurrency)
		}
	}
}

// A worker's file that is missing or ended badly makes the merge partial,
// and a merged file merges again like any result.
func TestMergeIsPartialWithoutAWorker(t *testing.T) {
	parts, _ := resulttest.SplitRun(t, 4, 2*time.Second, 9)
	parts[1].Interrupted = true
	merged, err := merge.Runs([]*result.Run{parts[0], parts[1], parts[3]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := merged.Partial(); p != "2/4" || len(merged.Workers.Missing) != 1 || merged.Workers.Missing[0] != 2 {
		t.Errorf("partial %q, missing %v, failed %v; want 2/4 (rank 2 missing, rank 1 interrupted)", p, merged.Workers.Missing, merged.Workers.Failed)
	}
	again, err := merge.Runs([]*result.Run{merged, parts[2]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Workers.Parts) != 4 || again.Partial() != "3/4" {
		t.Errorf("merging the merge with the missing worker: %d parts, partial %q", len(again.Workers.Parts), again.Partial())
	}
	if _, err := merge.Runs([]*result.Run{parts[0], parts[0]}, nil); err == nil {
		t.Error("a worker given twice was merged")
	}
}
