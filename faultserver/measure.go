package faultserver

import (
	"context"
	"errors"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/workload"
)

// Spec is the workload a fidelity check runs: a prepare stage writing the
// stream's objects (when it reads any), then the stream as the main stage.
func Spec(main workload.Stream) workload.Spec {
	var stages []workload.Stage
	if main.Objects.Count > 0 {
		prep := main
		prep.Name, prep.Mix, prep.Rate, prep.Bounds, prep.Data.Verify = "prepare", nil, nil, workload.Bounds{}, false
		stages = append(stages, workload.Stage{Name: "prepare", Kind: workload.KindPrepare, Streams: []workload.Stream{prep}})
	}
	return workload.Spec{Name: main.Name, Stages: append(stages,
		workload.Stage{Name: "main", Kind: workload.KindMain, Streams: []workload.Stream{main}})}
}

// ErrInterrupted is returned by Measure when ctx ended the run.
var ErrInterrupted = errors.New("faultserver: the measured run was interrupted")

// Runner runs a workload, calling onStep as each step begins, and returns
// its steps and whether ctx cut it short.
type Runner func(ctx context.Context, onStep func(workload.Stage, int)) (steps []result.Step, interrupted bool, err error)

// LoadgenRunner runs cfg with the load generator alone.
func LoadgenRunner(cfg loadgen.Config) Runner {
	return func(ctx context.Context, onStep func(workload.Stage, int)) ([]result.Step, bool, error) {
		cfg.OnStep = onStep
		out, err := loadgen.Run(ctx, cfg)
		if out == nil {
			return nil, false, err
		}
		return out.Steps, out.Interrupted, err
	}
}

// Measure runs a workload against srv with run and returns its main step.
// The server's log and stall clock restart when the main step begins, so
// its events and stalls are the main step's; Measure returns once the
// server has logged as many requests as the step issued ops, so the log
// can be compared with the client's totals right away.
func Measure(ctx context.Context, srv *Server, run Runner) (result.Step, error) {
	steps, interrupted, err := run(ctx, func(stage workload.Stage, _ int) {
		if stage.Kind == workload.KindMain {
			srv.ResetLog()
			srv.SetOrigin(time.Now())
		}
	})
	if err != nil {
		return result.Step{}, err
	}
	if interrupted {
		return result.Step{}, ErrInterrupted
	}
	for _, step := range steps {
		if step.Kind != result.KindMain {
			continue
		}
		var ops int64
		for _, st := range step.Streams {
			for _, t := range st.Totals {
				ops += t.Ops
			}
		}
		srv.awaitLogged(ctx, ops, 5*time.Second)
		return step, nil
	}
	return result.Step{}, errors.New("faultserver: the run had no main step")
}

// PercentileCheck is one percentile of the client's report against the
// server's truth, in microseconds.
type PercentileCheck struct {
	Name                  string
	Truth, Got, Tolerance int64
	Within                bool
}

// ComparePercentiles checks p50, p90, p99 and p99.9 of got against truth:
// each must lie within rel of the truth or within abs, whichever is larger.
func ComparePercentiles(got result.Percentiles, truth *hdr.Histogram, rel float64, abs time.Duration) []PercentileCheck {
	var out []PercentileCheck
	for _, c := range []struct {
		name string
		q    float64
		got  int64
	}{{"p50", 50, got.P50}, {"p90", 90, got.P90}, {"p99", 99, got.P99}, {"p99.9", 99.9, got.P999}} {
		want := truth.ValueAtQuantile(c.q)
		tol := max(int64(rel*float64(want)), int64(abs/time.Microsecond))
		d := c.got - want
		out = append(out, PercentileCheck{Name: c.name, Truth: want, Got: c.got, Tolerance: tol, Within: d >= -tol && d <= tol})
	}
	return out
}
