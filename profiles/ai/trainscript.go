package ai

import (
	"context"

	"golang.org/x/sync/errgroup"

	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/result"
)

// epochScript runs one epoch of this process's accelerators (g in
// [lo, hi) of the run's accels): each its loader, side by side, held
// together by a barrier after every step.
type epochScript struct {
	w      Workload
	ds     Dataset
	seed   uint64
	epoch  int
	accels int
	lo, hi int
	recs   []result.Loader
}

func (s *epochScript) Issuers() int { return (s.hi - s.lo) * s.w.ReadThreads }

func (s *epochScript) deal() *epochBatches {
	return newEpochBatches(s.ds, s.seed, s.epoch, s.accels, s.w.BatchSize)
}

func (s *epochScript) Run(stop context.Context, iss []*loadgen.Issuer) error {
	deal := s.deal()
	s.recs = runLoaders(stop, s.w, s.ds, deal, deal.steps(), s.lo, s.hi, iss)
	return nil
}

func (s *epochScript) Record(step *result.Step) {
	step.Training = append(step.Training, trainingOf(s.w, s.ds, s.accels, s.epoch, s.recs))
}

// runLoaders runs accelerators lo..hi-1, each on its share of iss (the
// workload's read threads), for steps batches of deal, and returns their
// records in order.
func runLoaders(stop context.Context, w Workload, ds Dataset, deal batches, steps, lo, hi int, iss []*loadgen.Issuer) []result.Loader {
	n := hi - lo
	bar := newBarrier(n)
	recs := make([]result.Loader, n)
	var g errgroup.Group
	for a := range n {
		l := &loader{ds: ds, deal: deal, g: lo + a, steps: steps, batch: w.BatchSize, depth: w.Depth(), compute: w.Compute,
			iss: iss[a*w.ReadThreads : (a+1)*w.ReadThreads], bar: bar}
		g.Go(func() error { recs[a] = l.run(stop); return nil })
	}
	_ = g.Wait() // loaders return nil
	return recs
}

// trainingOf is the step's training record for these loaders.
func trainingOf(w Workload, ds Dataset, accels, epoch int, recs []result.Loader) result.Training {
	return result.Training{Model: w.Model, Accelerator: w.Accelerator, Accelerators: accels, Epoch: epoch,
		BatchSize: w.BatchSize, ReadThreads: w.ReadThreads, Prefetch: w.Depth(), Compute: w.Compute, AUTarget: w.AUTarget,
		DatasetSamples: ds.Samples(), DatasetBytes: ds.Bytes(), Loaders: recs}
}
