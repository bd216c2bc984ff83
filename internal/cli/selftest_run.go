package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/objbench/objbench/faultserver"
	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/payload"
	"github.com/objbench/objbench/storage/s3"
	"github.com/objbench/objbench/workload"
)

// selftestTarget is a fault server and a client store on it.
type selftestTarget struct {
	srv   *faultserver.Server
	store *s3.Store
}

func startSelftestTarget(ctx context.Context, cfg faultserver.Config) (*selftestTarget, error) {
	srv, err := faultserver.Start(ctx, cfg)
	if err != nil {
		return nil, err
	}
	st, err := s3.New(ctx, s3.Config{Endpoint: srv.Endpoint(), Bucket: srv.Bucket(), AccessKey: "selftest", SecretKey: "selftest",
		Region: "us-east-1", PathStyle: true, MaxConns: 128})
	if err != nil {
		return nil, errors.Join(err, srv.Close(ctx))
	}
	return &selftestTarget{srv: srv, store: st}, nil
}

func (t *selftestTarget) close(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	return t.srv.Close(cctx)
}

// run runs one stream (with a prepare stage when it reads objects); the
// server's log and stall clock restart when the measured step begins.
func (t *selftestTarget) run(ctx context.Context, s workload.Stream) (metrics.OpTotal, loadgen.StepResult, error) {
	var stages []workload.Stage
	if s.Objects.Count > 0 {
		prep := s
		prep.Name, prep.Mix, prep.Rate, prep.Bounds, prep.Data.Verify = "prepare", nil, nil, workload.Bounds{}, false
		stages = append(stages, workload.Stage{Name: "prepare", Kind: workload.KindPrepare, Streams: []workload.Stream{prep}})
	}
	stages = append(stages, workload.Stage{Name: "main", Kind: workload.KindMain, Streams: []workload.Stream{s}})
	blk, err := payload.NewBlock(payload.DefaultBlockSize, 7, 0)
	if err != nil {
		return metrics.OpTotal{}, loadgen.StepResult{}, err
	}
	out, err := loadgen.Run(ctx, loadgen.Config{Store: t.store, Spec: workload.Spec{Name: "selftest", Stages: stages},
		Namespace: "objbench/selftest/", Block: blk, Seed: 11, Grace: 5 * time.Second, NoCleanup: true,
		OnStep: func(st workload.Stage, _ int) {
			if st.Kind == workload.KindMain {
				t.srv.ResetLog()
				t.srv.SetOrigin(time.Now())
			}
		}})
	if err != nil {
		return metrics.OpTotal{}, loadgen.StepResult{}, err
	}
	if out.Interrupted {
		return metrics.OpTotal{}, loadgen.StepResult{}, errInterrupted
	}
	for _, step := range out.Steps {
		if step.Kind != workload.KindMain {
			continue
		}
		op, err := metrics.ParseOp(s.Mix[0].Op)
		if err != nil {
			return metrics.OpTotal{}, step, err
		}
		for _, o := range step.Streams[0].Totals {
			if o.Op == op.String() {
				return o, step, nil
			}
		}
	}
	return metrics.OpTotal{}, loadgen.StepResult{}, fmt.Errorf("selftest: the %s run measured nothing", s.Name)
}

func selftestStream(op string, workers int, b workload.Bounds, size int64, objects int) workload.Stream {
	return workload.Stream{Name: op, Mix: []workload.OpWeight{{Op: op, Weight: 1}}, Concurrency: []int{workers},
		Bounds: b, Size: size, Objects: workload.KeySpace{Prefix: op + "/", Count: objects}}
}

// pctRow is one percentile: the server's truth against the client's report.
type pctRow struct {
	name         string
	truth, got   int64 // µs
	withinBounds bool
}

// comparePcts checks the client's percentiles against the server's: within
// 2% or 0.5 ms, whichever is larger.
func comparePcts(got metrics.Percentiles, truth *hdr.Histogram) []pctRow {
	var rows []pctRow
	for _, c := range []struct {
		name string
		q    float64
		got  int64
	}{{"p50", 50, got.P50}, {"p90", 90, got.P90}, {"p99", 99, got.P99}, {"p99.9", 99.9, got.P999}} {
		want := truth.ValueAtQuantile(c.q)
		tol := max(want/50, 500)
		d := c.got - want
		rows = append(rows, pctRow{name: c.name, truth: want, got: c.got, withinBounds: d >= -tol && d <= tol})
	}
	return rows
}

// selftestDelay is the known delay distribution of the latency check.
var selftestDelay = faultserver.Delay{Base: 2 * time.Millisecond, Jitter: 8 * time.Millisecond,
	Tail: []faultserver.Tail{{Fraction: 0.02, At: 50 * time.Millisecond}, {Fraction: 0.005, At: 100 * time.Millisecond}}}
