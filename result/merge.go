package result

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// part is one input of a merge: a worker's file, or a merged file that
// already holds several workers.
type part struct {
	run   *Run
	ranks []int
	size  int
	skew  time.Duration // the store's clock minus this file's
	file  string        // its name, as the workers table shows it
	index int           // its place among the inputs
}

func partOf(r *Run) (part, error) {
	switch {
	case r.Workers != nil:
		p := part{run: r, size: r.Workers.Size}
		for _, w := range r.Workers.Parts {
			p.ranks = append(p.ranks, w.Rank)
		}
		return p, nil // a merged file's times are the store's already
	case r.Worker != nil:
		return part{run: r, ranks: []int{r.Worker.Rank}, size: r.Worker.Size, skew: r.Worker.ClockOffset}, nil
	}
	return part{run: r, ranks: []int{0}, size: 1}, nil // a local run: the one worker of its run
}

// Merge combines the result files of a run's workers into one result, as
// if one process had run the whole: per-second records are put on the
// store's clock (each worker's offset applied) and summed, histograms
// merged, the window is the part every worker measured, and every rate and
// percentile is recomputed from the merged records, never averaged. A
// merge that lacks workers, or holds a worker whose run did not end well,
// is partial (Run.Partial).
func Merge(runs []*Run, files []string) (*Run, error) {
	if len(runs) == 0 {
		return nil, errors.New("merge: no result files")
	}
	parts, err := checkParts(runs, files)
	if err != nil {
		return nil, err
	}
	return mergeParts(parts, func(pl *mergePlan) error {
		ms := pl.mergers(nil)
		for pi, p := range parts {
			for k := range p.run.Steps {
				for j := range p.run.Steps[k].Streams {
					r := pl.routes[[3]int{pi, k, j}]
					for _, sec := range p.run.Steps[k].Streams[j].Seconds {
						for i := range sec.Ops {
							if err := ms[r.stream].add(sec.T, &sec.Ops[i], r.shift, nil); err != nil {
								return fmt.Errorf("step %d, second %d: %w", k+1, sec.T, err)
							}
						}
					}
				}
			}
		}
		return pl.finish(ms)
	})
}

// mergeParts merges parts: feed puts every part's seconds into the plan's
// mergers and finishes them; then the parts' totals are known.
func mergeParts(parts []part, feed func(*mergePlan) error) (*Run, error) {
	first := parts[0].run
	steps := 0
	for _, p := range parts {
		steps = max(steps, len(p.run.Steps))
	}
	out := &Run{RunInfo: first.RunInfo, Machine: first.Machine, Target: first.Target, Spec: first.Spec, CleanedUp: true,
		Workers: &Workers{Size: parts[0].size}}
	out.Schema, out.Failure = Version, nil
	pl, err := mergeSteps(parts)
	if err != nil {
		return nil, err
	}
	if err := feed(pl); err != nil {
		return nil, err
	}
	out.Steps = pl.steps
	for _, p := range parts {
		r := p.run
		out.Started = earliest(out.Started, r.Started.Add(p.skew))
		out.Finished = latest(out.Finished, r.Finished.Add(p.skew))
		out.Interrupted = out.Interrupted || r.Interrupted
		if out.Aborted == "" {
			out.Aborted, out.AbortDetail = r.Aborted, r.AbortDetail
		}
		if r.Failure != nil && out.Failure == nil { // the first worker's failure, by rank
			f := *r.Failure
			if r.Worker != nil {
				f.Cause = fmt.Sprintf("worker %d: %s", r.Worker.Rank, f.Cause)
			}
			out.Failure = &f
		}
		out.CleanedUp = out.CleanedUp && r.CleanedUp
		out.Workers.Parts = append(out.Workers.Parts, workerResults(p, p.file, steps)...)
	}
	sort.Slice(out.Workers.Parts, func(i, j int) bool { return out.Workers.Parts[i].Rank < out.Workers.Parts[j].Rank })
	have := map[int]bool{}
	for _, w := range out.Workers.Parts {
		have[w.Rank] = true
		if w.Ended != "" {
			out.Workers.Failed = append(out.Workers.Failed, w.Rank)
		}
	}
	for r := range out.Workers.Size {
		if !have[r] {
			out.Workers.Missing = append(out.Workers.Missing, r)
		}
	}
	return out, nil
}

// checkParts orders the inputs and refuses what cannot be one run:
// different run ids or sizes, a rank given twice.
func checkParts(runs []*Run, files []string) ([]part, error) {
	var parts []part
	seen := map[int]bool{}
	for i, r := range runs {
		p, err := partOf(r)
		if err != nil {
			return nil, err
		}
		p.index = i
		if i < len(files) {
			p.file = files[i]
		}
		if len(parts) > 0 {
			if r.RunID != parts[0].run.RunID {
				return nil, fmt.Errorf("merge: run %s and run %s are different runs", parts[0].run.RunID, r.RunID)
			}
			if p.size != parts[0].size {
				return nil, fmt.Errorf("merge: run %s has workers of %d and of %d", r.RunID, parts[0].size, p.size)
			}
		}
		for _, rank := range p.ranks {
			if seen[rank] {
				return nil, fmt.Errorf("merge: worker %d of run %s is given twice", rank, r.RunID)
			}
			seen[rank] = true
		}
		parts = append(parts, p)
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i].ranks[0] < parts[j].ranks[0] })
	return parts, nil
}

// workerResults is a part's line(s) in the merged run's workers table.
func workerResults(p part, file string, steps int) []WorkerResult {
	r := p.run
	if r.Workers != nil {
		return r.Workers.Parts
	}
	w := WorkerResult{Host: r.Machine.Hostname, File: file}
	if r.Worker != nil {
		w.Worker = *r.Worker
	} else {
		w.Size = 1
	}
	var lat *hdr.Histogram
	var codec histCodec
	var own []Percentiles // latencies as a packed file's totals give them
	for si, st := range r.Steps {
		if st.Kind != KindMain {
			continue
		}
		if w.Start.IsZero() {
			w.Start = st.Start.Add(p.skew)
		}
		for _, s := range st.Streams {
			for _, t := range s.Totals {
				w.Ops += t.Ops
				w.Errors += t.Ops - t.OK
				w.OpsPerS += t.OpsPerSec
				_ = codec.addEncoded(&lat, t.LatencyHist) // the step's latencies, as Summarize merged them
				if t.LatencyHist == "" && t.Latency.Count > 0 {
					own = append(own, t.Latency)
				}
			}
		}
		if r.System != nil {
			for _, v := range r.System.Verdicts {
				if v.Step == si && len(v.Findings) > 0 && w.Verdict == "" {
					w.Verdict = v.Findings[0].Kind
				}
			}
		}
	}
	switch {
	case lat != nil:
		w.P99us = lat.ValueAtQuantile(99)
	case len(own) == 1: // ownTotalsServe
		w.P99us = own[0].P99
	}
	switch {
	case r.Failure != nil && r.Failure.Step != "":
		w.Ended = "failed at " + r.Failure.Step + ": " + r.Failure.Cause
	case r.Failure != nil:
		w.Ended = "failed: " + r.Failure.Cause
	case r.Interrupted:
		w.Ended = "interrupted"
	case r.Aborted != "":
		w.Ended = "stopped early: " + r.Aborted
	case len(r.FailedMainSteps()) > 0:
		w.Ended = "every op failed in " + strings.Join(r.FailedMainSteps(), ", ")
	case len(r.Steps) < steps:
		w.Ended = fmt.Sprintf("ended after %d of %d steps", len(r.Steps), steps)
	}
	return []WorkerResult{w}
}

// mergePlan is a merge laid out before any per-second record is read:
// the merged steps with their streams but no seconds yet, and where each
// part's streams go.
type mergePlan struct {
	steps   []Step
	streams []streamSlot
	routes  map[[3]int]route // [part, step, stream] (indices in the parts) -> where it goes
}

// streamSlot is one merged stream: out.Steps[step].Streams[idx].
type streamSlot struct {
	step, idx int
	window    Window
}

type route struct {
	stream int   // index into mergePlan.streams
	shift  int64 // ticks to shift the part's seconds by
}

// mergers is a secondMerger per merged stream, holding the seconds own
// says (nil: all).
func (pl *mergePlan) mergers(own func(int64) bool) []*secondMerger {
	ms := make([]*secondMerger, len(pl.streams))
	for i := range ms {
		ms[i] = newSecondMerger(own)
	}
	return ms
}

// finish gives every merged stream its seconds (ms[i] summed stream i's)
// and its window and totals.
func (pl *mergePlan) finish(ms []*secondMerger) error {
	for i, slot := range pl.streams {
		s := &pl.steps[slot.step].Streams[slot.idx]
		var err error
		if s.Seconds, _, err = ms[i].emit(0, ms[i].max+1, nil, nil); err != nil {
			return fmt.Errorf("step %d: %w", slot.step+1, err)
		}
		if err := s.SetWindow(slot.window); err != nil {
			return fmt.Errorf("step %d: %w", slot.step+1, err)
		}
	}
	return nil
}

// mergeSteps plans the merge of the parts' steps, which ran in lock-step:
// step k of every part is one step. A part that has fewer steps (it failed
// or was cut short) adds to the steps it has.
func mergeSteps(parts []part) (*mergePlan, error) {
	n := 0
	for _, p := range parts {
		n = max(n, len(p.run.Steps))
	}
	pl := &mergePlan{steps: make([]Step, 0, n), routes: map[[3]int]route{}}
	for k := range n {
		var steps []*Step
		var skews []time.Duration
		var who []int
		for pi, p := range parts {
			if k < len(p.run.Steps) {
				steps = append(steps, &p.run.Steps[k])
				skews = append(skews, p.skew)
				who = append(who, pi)
			}
		}
		st, err := pl.mergeStep(k, steps, skews, who)
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", k+1, err)
		}
		pl.steps = append(pl.steps, st)
	}
	return pl, nil
}

// mergeStep plans step k of several parts (who[i] is steps[i]'s part) on
// the store's clock.
func (pl *mergePlan) mergeStep(k int, steps []*Step, skews []time.Duration, who []int) (Step, error) {
	out := *steps[0]
	out.Streams, out.Notes, out.Connections, out.FailedWorks = nil, nil, nil, nil
	start := steps[0].Start.Add(skews[0])
	for i, s := range steps {
		start = earliest(start, s.Start.Add(skews[i]))
	}
	shifts := make([]int64, len(steps)) // each part's start after the merged one, in ticks
	var end time.Time
	out.CPUUser, out.CPUSys, out.ConnsDialed, out.Requests, out.Synced = 0, 0, 0, 0, 0
	for i, s := range steps {
		abs := s.Start.Add(skews[i])
		shifts[i] = int64(math.Round(float64(abs.Sub(start)) / float64(Tick)))
		end = latest(end, abs.Add(s.Elapsed))
		out.CPUUser += s.CPUUser
		out.CPUSys += s.CPUSys
		out.ConnsDialed += s.ConnsDialed
		out.Requests += s.Requests
		out.Connections = out.Connections.Add(s.Connections)
		out.Synced = max(out.Synced, s.Synced)
		for _, n := range s.Notes {
			if !slices.Contains(out.Notes, n) {
				out.Notes = append(out.Notes, n)
			}
		}
		out.FailedWorks = append(out.FailedWorks, s.FailedWorks...) // each worker judged its own part
	}
	out.Start, out.Elapsed = start, end.Sub(start)
	tr, err := mergeTransfers(steps)
	if err != nil {
		return Step{}, err
	}
	out.Transfer = tr
	if err := mergeAI(&out, steps); err != nil {
		return Step{}, err
	}
	var names []string
	byName := map[string][]int{} // stream name -> indices into steps
	for i, s := range steps {
		for j, str := range s.Streams {
			if _, ok := byName[str.Name]; !ok {
				names = append(names, str.Name)
			}
			byName[str.Name] = append(byName[str.Name], i<<16|j)
		}
	}
	for _, name := range names {
		var streams []*Stream
		var sh []int64
		slot := len(pl.streams)
		for _, ij := range byName[name] {
			i, j := ij>>16, ij&0xffff
			streams = append(streams, &steps[i].Streams[j])
			sh = append(sh, shifts[i])
			pl.routes[[3]int{who[i], k, j}] = route{stream: slot, shift: shifts[i]}
		}
		s, w, err := planStream(streams, sh)
		if err != nil {
			return Step{}, fmt.Errorf("stream %s: %w", name, err)
		}
		pl.streams = append(pl.streams, streamSlot{step: k, idx: len(out.Streams), window: w})
		out.Streams = append(out.Streams, s)
	}
	return out, nil
}

func earliest(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
