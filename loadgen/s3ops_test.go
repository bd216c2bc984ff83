package loadgen_test

import (
	"context"
	"testing"

	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/mem"
	"github.com/objbench/objbench/workload"
)

// A store without what an op needs answers it "not implemented": the op
// is turned off after 100 such answers in a row, the other ops go on, and
// a stream whose every op is off stops, saying why. Nothing of it counts
// toward --max-errors.
func TestNotImplementedTurnsAnOpOff(t *testing.T) {
	for _, c := range []struct {
		name    string
		mix     []workload.OpWeight
		stopped string
	}{
		{"only copies", []workload.OpWeight{{Op: "copy", Weight: 1}}, "not implemented by this target"},
		{"copies among gets", []workload.OpWeight{{Op: "copy", Weight: 1}, {Op: "get", Weight: 1}}, "ops"},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := mem.New()
			main := workload.Stream{Name: "s", Mix: c.mix, Concurrency: []int{2}, Size: 100,
				Bounds: workload.Bounds{Ops: 2000}, Objects: workload.KeySpace{Prefix: "o/", Count: 20}}
			cfg := config(t, st, spec(main))
			cfg.MaxErrors = 5
			out, err := loadgen.Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			step := out.Steps[1]
			cp := total(t, step, "COPY")
			if n := cp.Errors[storage.ClassNotImpl]; n < 100 || n > 102 || n != cp.Ops {
				t.Errorf("COPY on a store without copies: %d ops, errors %v (want the op off after 100 in a row)", cp.Ops, cp.Errors)
			}
			if got := step.Streams[0].StoppedBy; got != c.stopped || out.Aborted != "" {
				t.Errorf("stream stopped by %q, run aborted %q; want %q and no abort", got, out.Aborted, c.stopped)
			}
			if c.stopped == "ops" {
				if g := total(t, step, "GET"); g.OK != g.Ops || g.Ops < 1800 {
					t.Errorf("GETs went on: %d of %d ok", g.OK, g.Ops)
				}
			}
		})
	}
}
