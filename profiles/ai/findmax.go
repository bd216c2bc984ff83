package ai

import (
	"context"

	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/result"
)

// FindMax searches the most accelerators the store keeps at the AU
// target: rounds of RoundSteps batches per accelerator, the count
// doubled from Start while the target holds, then halved back between
// the highest that held and the lowest that did not (as saturate steps a
// rate up to its knee).
type FindMax struct {
	Start, Max int
	RoundSteps int
}

// searchScript runs a find-max search in one step, a round after
// another; each round is a result.Training of its own.
type searchScript struct {
	w      Workload
	ds     Dataset
	seed   uint64
	fm     FindMax
	rounds []result.Training
	note   string
}

func (s *searchScript) Issuers() int { return s.fm.Max * s.w.ReadThreads }

func (s *searchScript) Run(stop context.Context, iss []*loadgen.Issuer) error {
	lo, hi := 0, 0 // the most that kept the target, the fewest that did not (0: none yet)
	a := max(s.fm.Start, 1)
	for {
		deal := roundBatches{ds: s.ds, seed: s.seed, accels: a, batch: s.w.BatchSize}
		recs := runLoaders(stop, s.w, s.ds, deal, s.fm.RoundSteps, 0, a, iss[:a*s.w.ReadThreads])
		if stop.Err() != nil {
			s.note = "find-max: stopped before the search ended (time limit or interrupt); the round cut short is left out"
			return nil
		}
		t := trainingOf(s.w, s.ds, a, 0, recs)
		s.rounds = append(s.rounds, t)
		if t.Met() {
			lo = a
		} else {
			hi = a
		}
		next, done := nextCount(lo, hi, s.fm.Max)
		if done {
			return nil
		}
		a = next
	}
}

// nextCount is the next round's accelerators given the most that kept
// the target (lo) and the fewest that did not (hi, 0: none yet); done
// when they are next to each other or the maximum held.
func nextCount(lo, hi, most int) (next int, done bool) {
	switch {
	case hi == 0 && lo >= most:
		return 0, true
	case hi == 0:
		return min(2*lo, most), false
	case hi-lo <= 1:
		return 0, true
	}
	return (lo + hi) / 2, false
}

func (s *searchScript) Record(step *result.Step) {
	step.Training = append(step.Training, s.rounds...)
	if s.note != "" {
		step.Notes = append(step.Notes, s.note)
	}
}
