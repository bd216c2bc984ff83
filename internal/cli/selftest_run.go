package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/objbench/objbench/faultserver"
	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/run"
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

// run measures one stream (see faultserver.Measure) the way objbench runs
// any workload (run.Run), and returns the totals of its op.
func (t *selftestTarget) run(ctx context.Context, s workload.Stream) (result.OpTotal, result.Step, error) {
	tgt := run.NewTarget(t.store, result.Target{Kind: "s3", Endpoint: t.srv.Endpoint(), Bucket: t.srv.Bucket()})
	step, err := faultserver.Measure(ctx, t.srv, func(ctx context.Context, onStep func(workload.Stage, int)) ([]result.Step, bool, error) {
		res, err := run.Run(ctx, faultserver.Spec(s), tgt, run.Options{RunID: "selftest", Seed: 11, Grace: 5 * time.Second,
			NoCleanup: true, NoWatch: true, OnStep: onStep})
		if res == nil {
			return nil, false, err
		}
		return res.Steps, res.Interrupted, err
	})
	if errors.Is(err, faultserver.ErrInterrupted) {
		return result.OpTotal{}, step, errInterrupted
	}
	if err != nil {
		return result.OpTotal{}, step, err
	}
	op, err := metrics.ParseOp(s.Mix[0].Op)
	if err != nil {
		return result.OpTotal{}, step, err
	}
	for _, o := range step.Streams[0].Totals {
		if o.Op == op.String() {
			return o, step, nil
		}
	}
	return result.OpTotal{}, step, fmt.Errorf("selftest: the %s run measured nothing", s.Name)
}

func selftestStream(op string, workers int, b workload.Bounds, size int64, objects int) workload.Stream {
	return workload.Stream{Name: op, Mix: []workload.OpWeight{{Op: op, Weight: 1}}, Concurrency: []int{workers},
		Bounds: b, Size: size, Objects: workload.KeySpace{Prefix: op + "/", Count: objects}}
}

// selftestDelay is the known delay distribution of the latency check.
var selftestDelay = faultserver.Delay{Base: 2 * time.Millisecond, Jitter: 8 * time.Millisecond,
	Tail: []faultserver.Tail{{Fraction: 0.02, At: 50 * time.Millisecond}, {Fraction: 0.005, At: 100 * time.Millisecond}}}
