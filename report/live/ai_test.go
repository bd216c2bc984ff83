package live_test

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/report/live"
	"github.com/objbench/objbench/result"
)

// An AI run's steps, once done, show on the page (a line each, with the
// next event) and in /metrics: an epoch's AU, a checkpoint's seconds.
func TestViewShowsAIFigures(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	v := live.New(live.Info{RunID: "ai", Target: "mem"})
	v.Start(ln)
	t.Cleanup(func() { _ = v.Close(context.Background()) })
	v.StepDone(result.Step{Stage: "epoch-1", Training: []result.Training{{Model: "unet3d", Accelerator: "h100", Accelerators: 1, Epoch: 1,
		BatchSize: 1, Compute: 10 * time.Millisecond, AUTarget: 0.9,
		Loaders: []result.Loader{{Steps: 11, Compute: 100 * time.Millisecond, Wall: 200 * time.Millisecond}}}}})
	v.StepDone(result.Step{Stage: "save-1", Checkpoint: &result.Checkpoint{Model: "llama3-8b", Op: "save", Index: 1, Ranks: 1, Scale: 1,
		Bytes: 10, Objects: 1, Rank: []result.RankIO{{Bytes: 10, Elapsed: 1500 * time.Millisecond}}}})
	v.StepDone(result.Step{Stage: "cleanup"}) // no figures: nothing to show
	sse := testenv.OpenSSE(t, base+"/events")
	ev := sse.Next(t, 5*time.Second)
	var e live.Event
	if err := json.Unmarshal([]byte(ev.Data), &e); err != nil {
		t.Fatal(err)
	}
	if len(e.Figures) != 2 || !strings.Contains(e.Figures[0], "epoch-1: epoch 1, 1 H100 (unet3d): AU 50.0%") ||
		!strings.Contains(e.Figures[1], "save-1: save 1 of llama3-8b") {
		t.Errorf("figures %q", e.Figures)
	}
	mfs := testenv.Scrape(t, base+"/metrics")
	if m := testenv.Metric(mfs, "objbench_ai_accelerator_utilisation", "stage", "epoch-1"); m == nil || m.GetGauge().GetValue() != 0.5 {
		t.Errorf("AU gauge %v", m)
	}
	if m := testenv.Metric(mfs, "objbench_ai_checkpoint_seconds", "stage", "save-1"); m == nil || m.GetGauge().GetValue() != 1.5 {
		t.Errorf("checkpoint gauge %v", m)
	}
}
