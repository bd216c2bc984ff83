package ai

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/objbench/objbench/distributed"
	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/workload"
)

// Plan is a profile's run: an ordinary workload spec, the scripts that
// drive its streams (run.Options.Scripts takes Plan.Scripts) and what it
// will do, in words, for a dry run.
type Plan struct {
	Spec workload.Spec
	// Lines say what the run will do: objects, bytes and requests.
	Lines []string
	// Check, when set, looks at the target before the run: a data set
	// the run reads and does not write must be there.
	Check   func(ctx context.Context, st storage.Store) error
	scripts map[string]func(step int) loadgen.Script
}

func newPlan(sp workload.Spec) *Plan {
	return &Plan{Spec: sp, scripts: map[string]func(int) loadgen.Script{}}
}

// script makes stream stream of stage stage driven by make (called once
// per step).
func (p *Plan) script(stage, stream string, make func(step int) loadgen.Script) {
	p.scripts[stage+"\x00"+stream] = make
}

func (p *Plan) line(format string, a ...any) { p.Lines = append(p.Lines, fmt.Sprintf(format, a...)) }

// share says what this process runs of a run split across processes:
// its part [lo, hi) of the n units (accelerator, rank, query: a noun in
// the singular, after verb) the run is split by, then what that holds. A
// run in one process says nothing.
func (p *Plan) share(w distributed.Worker, verb, unit string, lo, hi, n int64, holds string, a ...any) {
	if w.Solo() {
		return
	}
	part := fmt.Sprintf("%s %d", unit, lo)
	if hi-lo > 1 {
		part = fmt.Sprintf("%s %d-%d", plural(unit), lo, hi-1)
	}
	p.line("this process is worker %v: %s%s (%d of %d)%s", w, verb, part, hi-lo, n, fmt.Sprintf(holds, a...))
}

// splitCheck refuses a split in which a worker would have none of the n
// units the run is split by: it would run nothing while the merge counted
// it among the workers that ran.
func splitCheck(w distributed.Worker, unit string, n int) error {
	if w.Solo() || n < 1 || n >= w.N() {
		return nil
	}
	idle := fmt.Sprintf("workers %d to %d", n, w.N()-1)
	if n == w.N()-1 {
		idle = fmt.Sprintf("worker %d", n)
	}
	return fmt.Errorf("%s %d over %d workers: %s would have none to run; give at least %d %s or at most %s",
		plural(unit), n, w.N(), idle, w.N(), plural(unit), nOf(int64(n), "worker"))
}

// Scripts gives the script of stream sp of stage st at step i, nil for
// the spec's ordinary streams (cleanup).
func (p *Plan) Scripts(st workload.Stage, i int, sp workload.Stream) (loadgen.Script, error) {
	mk, ok := p.scripts[st.Name+"\x00"+sp.Name]
	if !ok {
		return nil, nil
	}
	return mk(i), nil
}

// writeScript writes objects n objects, object i by op(i), on its
// issuers in turn (a data set's generation: streamed from the payload
// generator, never held).
type writeScript struct {
	n       int64
	op      func(i int64) loadgen.ScriptOp
	issuers int
	what    string
	failed  atomic.Int64
}

func (s *writeScript) Issuers() int { return int(min(int64(s.issuers), max(s.n, 1))) }

func (s *writeScript) Run(stop context.Context, iss []*loadgen.Issuer) error {
	var next atomic.Int64
	var g errgroup.Group
	for _, is := range iss {
		g.Go(func() error {
			for stop.Err() == nil {
				i := next.Add(1) - 1
				if i >= s.n {
					return nil
				}
				if _, err := is.Do(s.op(i)); err != nil {
					s.failed.Add(1)
				}
			}
			return nil
		})
	}
	return g.Wait()
}

func (s *writeScript) Record(step *result.Step) {
	if f := s.failed.Load(); f > 0 {
		step.Notes = append(step.Notes, fmt.Sprintf("%s: %d of %d objects failed to write: reads of them will fail", s.what, f, s.n))
	}
}

// checkObjects is a Check that stats the objects keys (below ns) and
// fails unless each is there with its size: a data set missing, or
// written with another layout, is found before the run instead of by
// every read failing.
func checkObjects(ns, what string, objs []loadgen.ScriptOp) func(ctx context.Context, st storage.Store) error {
	return func(ctx context.Context, st storage.Store) error {
		for _, o := range objs {
			info, err := st.Stat(ctx, ns+o.Key)
			switch {
			case errors.Is(err, storage.ErrNotFound):
				return fmt.Errorf("%s is not in the store (no %s): write it first (Generate)", what, ns+o.Key)
			case err != nil:
				return fmt.Errorf("%s: stat %s: %w", what, ns+o.Key, err)
			case info.Size != o.Size:
				return fmt.Errorf("%s: %s holds %d bytes where its layout has %d: it was written with other parameters (Generate writes it again)",
					what, ns+o.Key, info.Size, o.Size)
			}
		}
		return nil
	}
}
