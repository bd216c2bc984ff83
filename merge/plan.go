package merge

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/objbench/objbench/result"
)

// mergePlan is a merge laid out before any per-second record is read:
// the merged steps with their streams but no seconds yet, and where each
// part's streams go.
type mergePlan struct {
	steps   []result.Step
	streams []streamSlot
	routes  map[[3]int]route // [part, step, stream] (indices in the parts) -> where it goes
}

// streamSlot is one merged stream: out.Steps[step].Streams[idx].
type streamSlot struct {
	step, idx int
	window    result.Window
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
	pl := &mergePlan{steps: make([]result.Step, 0, n), routes: map[[3]int]route{}}
	for k := range n {
		var steps []*result.Step
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
func (pl *mergePlan) mergeStep(k int, steps []*result.Step, skews []time.Duration, who []int) (result.Step, error) {
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
		shifts[i] = int64(math.Round(float64(abs.Sub(start)) / float64(result.Tick)))
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
		return result.Step{}, err
	}
	out.Transfer = tr
	if err := mergeAI(&out, steps); err != nil {
		return result.Step{}, err
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
		var streams []*result.Stream
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
			return result.Step{}, fmt.Errorf("stream %s: %w", name, err)
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

// planStream merges one stream of several parts but for its seconds,
// part i's to be shifted by shifts[i] ticks onto the merged step's clock:
// the merged stream, and the window to give it once its seconds are in.
func planStream(streams []*result.Stream, shifts []int64) (result.Stream, result.Window, error) {
	out := result.Stream{Name: streams[0].Name}
	var stopped []string
	lo, hi := math.Inf(-1), math.Inf(1)
	ulo, uhi := math.Inf(1), math.Inf(-1) // the union, where the windows do not meet
	for i, s := range streams {
		out.Concurrency += s.Concurrency
		out.MaxWorkers += s.MaxWorkers
		out.PeakWorkers += s.PeakWorkers
		out.COSBench = addCOSBenchRates(out.COSBench, s.COSBench)
		if !slices.Contains(stopped, s.StoppedBy) {
			stopped = append(stopped, s.StoppedBy)
		}
		if s.Window.Duration() > 0 { // the part every worker measured
			sh := result.TickSeconds(shifts[i])
			lo, hi = max(lo, s.Window.Start+sh), min(hi, s.Window.End+sh)
			ulo, uhi = min(ulo, s.Window.Start+sh), max(uhi, s.Window.End+sh)
		}
	}
	out.StoppedBy = strings.Join(stopped, ",")
	out.Outages = mergeOutages(streams, shifts)
	if err := mergeStreamPhases(&out, streams); err != nil {
		return result.Stream{}, result.Window{}, err
	}
	w := result.Window{}
	if !(hi > lo) { // short steps of fixed work (prepare, cleanup): the workers' windows never met
		lo, hi = ulo, uhi
	}
	if hi > lo {
		w = result.Window{Start: lo, End: hi}
		if snapped := result.SnapWindow(w); snapped.Duration() > 0 {
			w = snapped
		}
	}
	return out, w, nil
}
