package run

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/objbench/objbench/distributed"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/workload"
)

// meeting is how a worker of a split run starts each step with the others;
// a nil meeting (a local run) starts each step at once.
type meeting struct {
	rv   *distributed.Rendezvous
	seen map[string]int // times each stage name began: the same in every worker, even when one failed a step
}

// rendezvous measures this worker's clock against the store's and sets up
// its meetings, recording both in res; nil for a local run.
func rendezvous(ctx context.Context, tgt *Target, res *result.Run, o Options) (*meeting, error) {
	if o.Worker.Solo() {
		return nil, nil
	}
	if err := o.Worker.Valid(); err != nil {
		return nil, err
	}
	var off distributed.Offset
	if c, ok := tgt.Store.(storage.Clock); ok {
		var err error
		if off, err = distributed.MeasureOffset(ctx, c); err != nil {
			return nil, fmt.Errorf("worker %v: the store's clock: %w", o.Worker, err)
		}
	}
	res.Worker = &result.Worker{Rank: o.Worker.Rank, Size: o.Worker.N(), Engine: o.Engine, ClockOffset: off.Offset, ClockError: off.Error}
	return &meeting{seen: map[string]int{}, rv: &distributed.Rendezvous{Store: tgt.Store, Prefix: res.Target.Namespace + distributed.MarkerDir,
		Worker: o.Worker, Clock: off, Timeout: o.RendezvousTimeout, MaxSkew: o.MaxSkew}}, nil
}

// beforeStep meets the other workers and waits for the instant they agreed
// on, so every worker starts the step together.
func (m *meeting) beforeStep(ctx context.Context, st workload.Stage, i int) error {
	if m == nil {
		return nil
	}
	if i == 0 {
		m.seen[st.Name]++
	}
	start, _, err := m.rv.Meet(ctx, fmt.Sprintf("%s.%d.%d", safeName(st.Name), m.seen[st.Name], i+1))
	var missing *distributed.MissingError
	switch {
	case errors.As(err, &missing) && (st.Kind == workload.KindCleanup || st.Kind == workload.KindDispose):
		return nil // a worker that is gone still lets the others clean up what they wrote
	case err != nil:
		return err
	}
	if d := time.Until(start); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}

// leave removes this worker's meeting markers (the last worker to leave
// removes the rest).
func (m *meeting) leave(ctx context.Context) {
	if m != nil {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_ = m.rv.Leave(cctx) // leftover markers are a nuisance, not a failed run
	}
}

// safeName keeps a stage name to letters, digits, '-' and '_' for a key.
func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	return string(b)
}
