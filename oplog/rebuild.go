package oplog

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
)

// Rebuild makes a result from an op log alone: one step per step the log
// names (in the order they first appear), one stream per stream, each op
// counted in the second it ended as the run counted it. Its histograms
// are those of the run (latency and TTFB are logged to the microsecond,
// as they are recorded); its windows come from the ops' own times. It
// reads the log twice: once for when each step began.
func Rebuild(path string) (*result.Run, error) {
	starts, order, err := stepStarts(path)
	if err != nil {
		return nil, err
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("%s: no ops", path)
	}
	r, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	type streamKey struct{ step, stream string }
	type streamState struct {
		series  *metrics.Series
		workers map[int]*metrics.Recorder
		last    time.Time
	}
	streams := map[streamKey]*streamState{}
	var streamOrder []streamKey
	var rec Record
	var res metrics.Result
	for {
		err := r.Next(&rec)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		k := streamKey{rec.Step, rec.Stream}
		st := streams[k]
		if st == nil {
			st = &streamState{series: metrics.NewSeries(starts[rec.Step]), workers: map[int]*metrics.Recorder{}}
			streams[k] = st
			streamOrder = append(streamOrder, k)
		}
		wr := st.workers[rec.Worker]
		if wr == nil {
			wr = st.series.NewRecorder()
			if !rec.Intended.IsZero() {
				wr.OpenLoop()
			}
			st.workers[rec.Worker] = wr
		}
		res = metrics.Result{Op: rec.Op, Start: rec.Start, Intended: rec.Intended, End: rec.Start.Add(rec.Latency)}
		if res.Intended.IsZero() {
			res.Intended = res.Start
		}
		if rec.TTFB > 0 {
			res.FirstByte = rec.Start.Add(rec.TTFB)
		}
		if rec.Class != "" {
			res.Err = storage.ClassError(rec.Class)
		}
		if res.Err == nil || result.AnsweredClass(rec.Class) {
			res.Bytes = movedBytes(&rec)
		}
		wr.Record(&res)
		st.last = maxTime(st.last, res.End)
	}
	run := &result.Run{RunInfo: result.RunInfo{Schema: result.Version, Tool: result.Tool{Name: "objbench op log"},
		RunID: "op log " + path, Started: starts[order[0]]}}
	steps := map[string]int{}
	for _, name := range order {
		stage, sweep, rep := ParseStep(name)
		steps[name] = len(run.Steps)
		run.Steps = append(run.Steps, result.Step{Stage: stage, Sweep: sweep, Repetition: rep, Kind: kindOf(stage), Start: starts[name]})
	}
	for _, k := range streamOrder {
		st, step := streams[k], &run.Steps[steps[k.step]]
		secs, win := st.series.Finish()
		s := result.Stream{Name: k.stream, Concurrency: len(st.workers), StoppedBy: "op log", Seconds: secs}
		if err := s.SetWindow(win); err != nil {
			return nil, err
		}
		step.Streams = append(step.Streams, s)
		step.Elapsed = max(step.Elapsed, st.last.Sub(step.Start))
	}
	run.Finished = run.Started
	for _, s := range run.Steps {
		run.Finished = maxTime(run.Finished, s.Start.Add(s.Elapsed))
	}
	run.CleanedUp = true
	return run, nil
}

// movedBytes is what a successful op moved, as the run counted it: the
// logged size of a write or a whole read, a ranged read's range.
func movedBytes(rec *Record) int64 {
	switch rec.Op {
	case metrics.OpPut, metrics.OpMultipart, metrics.OpGet, metrics.OpRangeGet, metrics.OpCopy, metrics.OpPartCopy:
		return rec.Size
	}
	return 0
}

// stepStarts is when each step's first op started, and the steps in the
// order they first appear.
func stepStarts(path string) (map[string]time.Time, []string, error) {
	r, err := Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	starts := map[string]time.Time{}
	var order []string
	var rec Record
	for {
		err := r.Next(&rec)
		if err == io.EOF {
			return starts, order, nil
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		t, ok := starts[rec.Step]
		if !ok {
			order = append(order, rec.Step)
		}
		if !ok || rec.Start.Before(t) {
			starts[rec.Step] = rec.Start
		}
	}
}

// ParseStep splits a step's name as the op log writes it: "STAGE
// [SWEEP] #REP" (an empty name is the main stage's).
func ParseStep(name string) (stage, sweep string, rep int) {
	if i := strings.LastIndex(name, " #"); i >= 0 {
		if n, err := strconv.Atoi(name[i+2:]); err == nil {
			name, rep = name[:i], n
		}
	}
	if i := strings.Index(name, " ["); i >= 0 && strings.HasSuffix(name, "]") {
		name, sweep = name[:i], name[i+2:len(name)-1]
	}
	if name == "" {
		name = result.KindMain
	}
	return name, sweep, rep
}

// kindOf guesses a stage's kind from its name, as the op commands name
// them; a workload's own stage names are main stages.
func kindOf(stage string) string {
	switch stage {
	case result.KindPrepare, result.KindCleanup, "init", "dispose":
		return stage
	}
	return result.KindMain
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
