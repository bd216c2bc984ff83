package merge

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/objbench/objbench/internal/resultpack"
	"github.com/objbench/objbench/result"
)

// part is one input of a merge: a worker's file, or a merged file that
// already holds several workers.
type part struct {
	run   *result.Run
	ranks []int
	size  int
	skew  time.Duration // the store's clock minus this file's
	file  string        // its name, as the workers table shows it
	index int           // its place among the inputs
}

func partOf(r *result.Run) (part, error) {
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

// Runs combines the results of a run's workers into one result, as
// if one process had run the whole: per-second records are put on the
// store's clock (each worker's offset applied) and summed, histograms
// merged, the window is the part every worker measured, and every rate and
// percentile is recomputed from the merged records, never averaged. A
// merge that lacks workers, or holds a worker whose run did not end well,
// is partial (result.Run.Partial).
func Runs(runs []*result.Run, files []string) (*result.Run, error) {
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
func mergeParts(parts []part, feed func(*mergePlan) error) (*result.Run, error) {
	first := parts[0].run
	steps := 0
	for _, p := range parts {
		steps = max(steps, len(p.run.Steps))
	}
	out := &result.Run{RunInfo: first.RunInfo, Machine: first.Machine, Target: first.Target, Spec: first.Spec, CleanedUp: true,
		Workers: &result.Workers{Size: parts[0].size}}
	out.Schema, out.Failure = result.Version, nil
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
func checkParts(runs []*result.Run, files []string) ([]part, error) {
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
func workerResults(p part, file string, steps int) []result.WorkerResult {
	r := p.run
	if r.Workers != nil {
		return r.Workers.Parts
	}
	w := result.WorkerResult{Host: r.Machine.Hostname, File: file}
	if r.Worker != nil {
		w.Worker = *r.Worker
	} else {
		w.Size = 1
	}
	var lat *hdr.Histogram
	var codec resultpack.Codec
	var own []result.Percentiles // latencies as a packed file's totals give them
	for si, st := range r.Steps {
		if st.Kind != result.KindMain {
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
				_ = codec.AddEncoded(&lat, t.LatencyHist) // the step's latencies, as Summarize merged them
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
	return []result.WorkerResult{w}
}
