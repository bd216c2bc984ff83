package loadgen

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/objbench/objbench/distributed"
	"github.com/objbench/objbench/workload"
)

// A run split across N processes shares each stream's counts as one: a
// step's concurrency is the run's total, split by rank (Worker.Share),
// as COSBench splits a work's workers over its drivers; its ops and bytes
// follow the workers (Worker.ShareBy), so that no process gets ops
// without workers to issue them and the shares add up to the whole. A
// process may have no workers in a step (concurrency 1 of a sweep over 4
// processes): it runs nothing there, as a COSBench driver given no
// workers of a work. A split that leaves a process with nothing to do in
// any step is refused before any load: it would stand idle while
// reported as a worker of the run (`-c 2` over 3 processes once counted
// 200 of 300 PUTs as the run's). Open-loop streams interleave the
// schedule's slots (each process serves slots r, r+N...), COSBench works
// bound to a driver run whole on its rank, and a replayed stream splits
// its trace by itself.

// Share is one worker's part of one stream in one step.
type Share struct {
	Stage  string             `json:"stage"`
	Kind   workload.StageKind `json:"kind"`
	Step   int                `json:"step"` // the sweep's step, from 0
	Stream string             `json:"stream"`
	// Workers of AllWorkers (the step's concurrency), Ops of AllOps and
	// Bytes of AllBytes (0: not bounded by that count).
	Workers, AllWorkers int
	Ops, AllOps         int64
	Bytes, AllBytes     int64
	// Prepare: this worker writes objects [First, First+Objects) of
	// AllObjects.
	First, Objects, AllObjects int64
	// How says when the stream is not split by the rule above ("open
	// loop: slots 1, 4, 7..."; "whole on this worker: COSBench driver d";
	// "not on this worker").
	How string
}

// SplitError says which processes a split leaves with nothing to do in
// any step, and the stream steps that left them idle. Field is the
// stream's field ("concurrency", "ops" or "bytes"), Value its value in
// that step.
type SplitError struct {
	Size     int
	Idle     []int // ranks with nothing to do in any step
	Problems []SplitProblem
}

// SplitProblem is one stream step that leaves some of the idle ranks
// without work.
type SplitProblem struct {
	Stage, Stream string
	Step          int // from 0
	Field         string
	Value         int64
	Idle          []int // the ranks it leaves without work
}

func (e *SplitError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the run cannot be split over %d workers: worker(s) %s would have nothing to do in any step:", e.Size, distributed.RankList(e.Idle))
	for _, p := range e.Problems {
		fmt.Fprintf(&b, "\n  stage %s, step %d, stream %s: %s %d over %d workers leaves worker(s) %s with none; give %s at least %d (a multiple of %d splits evenly), or run at most %d workers",
			p.Stage, p.Step+1, p.Stream, p.Field, p.Value, e.Size, distributed.RankList(p.Idle), p.Field, e.Size, e.Size, p.Value)
	}
	return b.String()
}

// Split is worker w's share of every stream step of sp, or the error that
// says why sp cannot be split over w.N() processes (the same error for
// every rank, so that every process refuses alike). A local run (one
// worker) always splits.
func Split(sp workload.Spec, w distributed.Worker) ([]Share, error) {
	drivers := sp.DriverRanks()
	var out []Share
	var problems []SplitProblem
	busy := make([]bool, w.N())
	mains := 0
	for _, st := range sp.Stages {
		if st.Kind != workload.KindMain && st.Kind != workload.KindPrepare {
			continue
		}
		for i := range st.Steps() {
			for _, s := range st.Streams {
				out = append(out, splitShare(st, s, i, w, drivers))
				if st.Kind != workload.KindMain || w.Solo() {
					continue
				}
				mains++
				for r := range w.N() {
					if sh := splitShare(st, s, i, distributed.Worker{Rank: r, Size: w.N()}, drivers); sh.Workers > 0 &&
						(sh.AllOps == 0 || sh.Ops > 0 || s.Bounds.PerWorker) && (sh.AllBytes == 0 || sh.Bytes > 0 || s.Bounds.PerWorker) {
						busy[r] = true
					}
				}
				if s.Driver == "" && s.Rate == nil {
					problems = append(problems, splitProblems(st, s.At(i), i, w.N())...)
				}
			}
		}
	}
	var idle []int
	for r, b := range busy {
		if !b && mains > 0 {
			idle = append(idle, r)
		}
	}
	if len(idle) == 0 {
		return out, nil
	}
	var named []SplitProblem // the steps that leave the idle ranks without work
	for _, p := range problems {
		for _, r := range p.Idle {
			if slices.Contains(idle, r) {
				named = append(named, p)
				break
			}
		}
	}
	return out, &SplitError{Size: w.N(), Idle: idle, Problems: named}
}

// splitShare is w's part of stream s in step i of stage st.
func splitShare(st workload.Stage, s workload.Stream, i int, w distributed.Worker, drivers map[string]int) Share {
	sh := Share{Stage: st.Name, Kind: st.Kind, Step: i, Stream: s.Name}
	if st.Kind == workload.KindPrepare {
		c := s.MaxConcurrency()
		sh.AllWorkers, sh.AllObjects = c, int64(s.Objects.Count)
		lo, hi := w.Range(sh.AllObjects)
		sh.First, sh.Objects = lo, hi-lo
		// Every process writes its part of the objects, with at least
		// one worker: a share of no workers must not drop its objects.
		sh.Workers = int(max(w.Share(int64(c)), 1))
		if sh.AllObjects > 0 {
			sh.Workers = int(min(int64(sh.Workers), max(sh.Objects, 1)))
		}
		return sh
	}
	s = s.At(i)
	c := s.ConcurrencyAt(0)
	sh.AllWorkers, sh.AllOps, sh.AllBytes = c, s.Bounds.Ops, s.Bounds.Bytes
	switch {
	case s.Driver != "" && !w.Solo():
		if drivers[s.Driver] != w.Rank {
			sh.How = fmt.Sprintf("not on this worker: COSBench driver %s runs it whole (worker %d)", s.Driver, drivers[s.Driver])
			return sh
		}
		sh.Workers, sh.Ops, sh.Bytes = c, sh.AllOps, sh.AllBytes
		sh.How = "whole on this worker: COSBench driver " + s.Driver
	case s.Rate != nil && !w.Solo():
		sh.Workers = int(max(w.Share(int64(c)), 1))
		sh.Ops, sh.Bytes = w.Share(sh.AllOps), w.Share(sh.AllBytes)
		sh.How = fmt.Sprintf("open loop: this worker serves slots %d, %d, %d... of the run's schedule", w.Rank, w.Nth(1), w.Nth(2))
	case s.Bounds.PerWorker: // COSBench's totalOps: each worker the same part, ops/concurrency
		sh.Workers = int(w.Share(int64(c)))
		po, pb := s.Bounds.WorkerPart(c)
		sh.Ops, sh.Bytes = po*int64(sh.Workers), pb*int64(sh.Workers)
		sh.How = fmt.Sprintf("each worker its own part: %d ops, %d bytes", po, pb)
	default:
		sh.Workers = int(w.Share(int64(c)))
		sh.Ops, sh.Bytes = w.ShareBy(sh.AllOps, int64(c)), w.ShareBy(sh.AllBytes, int64(c))
	}
	return sh
}

// splitProblems names the ranks a main stream step (split by the rule)
// leaves without workers, ops or bytes.
func splitProblems(st workload.Stage, s workload.Stream, i, n int) []SplitProblem {
	c := int64(s.ConcurrencyAt(0))
	var out []SplitProblem
	check := func(field string, total int64, share func(distributed.Worker) int64) {
		var idle []int
		for r := range n {
			if share(distributed.Worker{Rank: r, Size: n}) == 0 {
				idle = append(idle, r)
			}
		}
		if len(idle) > 0 {
			out = append(out, SplitProblem{Stage: st.Name, Stream: s.Name, Step: i, Field: field, Value: total, Idle: idle})
		}
	}
	check("concurrency", c, func(w distributed.Worker) int64 { return w.Share(c) })
	if len(out) > 0 || s.Bounds.PerWorker {
		return out // ops and bytes follow the workers: the same ranks
	}
	if o := s.Bounds.Ops; o > 0 {
		check("ops", o, func(w distributed.Worker) int64 { return w.ShareBy(o, c) })
	}
	if b := s.Bounds.Bytes; b > 0 {
		check("bytes", b, func(w distributed.Worker) int64 { return w.ShareBy(b, c) })
	}
	return out
}

// WriteShares writes worker w's shares as a dry run shows them.
func WriteShares(out io.Writer, w distributed.Worker, shares []Share) {
	fmt.Fprintf(out, "this process is worker %v: its share of the run (counts are the run's totals, split across its %d workers)\n", w, w.N())
	for _, s := range shares {
		fmt.Fprintf(out, "  %s", s.Stage)
		if s.Kind == workload.KindMain {
			fmt.Fprintf(out, " step %d", s.Step+1)
		}
		fmt.Fprintf(out, ", stream %s: ", s.Stream)
		switch {
		case s.Kind == workload.KindPrepare && s.AllObjects > 0:
			fmt.Fprintf(out, "objects %d-%d (%d of %d) with %d workers\n", s.First, s.First+s.Objects-1, s.Objects, s.AllObjects, s.Workers)
		case s.Kind == workload.KindPrepare:
			fmt.Fprintf(out, "its part of the objects with %d workers\n", s.Workers)
		case s.Workers == 0:
			fmt.Fprintf(out, "%s\n", cmpOr(s.How, "nothing"))
		default:
			fmt.Fprintf(out, "%d of %d workers", s.Workers, s.AllWorkers)
			if s.AllOps > 0 {
				fmt.Fprintf(out, ", %d of %d ops", s.Ops, s.AllOps)
			}
			if s.AllBytes > 0 {
				fmt.Fprintf(out, ", %d of %d bytes", s.Bytes, s.AllBytes)
			}
			if s.How != "" {
				fmt.Fprintf(out, " (%s)", s.How)
			}
			fmt.Fprintln(out)
		}
	}
}
