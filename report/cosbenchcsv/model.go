package cosbenchcsv

import (
	"encoding/json"
	"fmt"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/workload"
)

// stage is a stage as COSBench numbers and names it ("s3-main"): one
// <workstage> of a COSBench workload, which may have run as several
// steps (its works of several types, its createContainer, its
// closuredelay), or else one step of the run.
type stage struct {
	id    string
	name  string
	steps []*result.Step
}

// stagesOf numbers the run's stages as COSBench numbers its workstages
// (dev/cosbench-controller/src/com/intel/cosbench/controller/service/
// WorkloadProcessor.java: "s" + index + "-" + name): the steps of one
// workstage are one stage, so the steps objbench adds (a closuredelay's
// wait, a createContainer's init) shift no id.
func stagesOf(r *result.Run) []stage {
	ws := workstages(r)
	var out []stage
	for i := range r.Steps {
		st := &r.Steps[i]
		w := ws[i]
		if w == nil {
			out = append(out, stage{id: fmt.Sprintf("s%d-%s", len(out)+1, safeName(st.Stage)), name: st.Stage, steps: []*result.Step{st}})
			continue
		}
		if n := len(out); n > 0 && i > 0 && ws[i-1] != nil && *ws[i-1] == *w {
			out[n-1].steps = append(out[n-1].steps, st)
			continue
		}
		out = append(out, stage{id: fmt.Sprintf("s%d-%s", w.Index, safeName(w.Name)), name: w.Name, steps: []*result.Step{st}})
	}
	return out
}

// workstages finds the COSBench workstage of each step of the run (nil
// where the spec has none): the steps follow the spec's stages in order,
// a stage giving one step or more (a sweep, repetitions) or none (not
// run after a failure).
func workstages(r *result.Run) []*workload.Workstage {
	out := make([]*workload.Workstage, len(r.Steps))
	sp := specOf(r)
	if sp == nil {
		return out
	}
	k, used := 0, false // the spec stage the next step may be of, and whether a step was
	for i := range r.Steps {
		st := &r.Steps[i]
		if used && st.Step == 0 && st.Repetition <= 1 {
			k, used = k+1, false // a step 0 starts the next stage
		}
		for k < len(sp.Stages) && (sp.Stages[k].Name != st.Stage || string(sp.Stages[k].Kind) != st.Kind) {
			k, used = k+1, false
		}
		if k == len(sp.Stages) {
			return make([]*workload.Workstage, len(r.Steps)) // steps the spec does not explain: number them as they come
		}
		out[i], used = sp.Stages[k].Workstage, true
	}
	return out
}

// state is the stage's final state in COSBench's words.
func (s stage) state() string {
	for _, st := range s.steps {
		if len(st.FailedWorks) > 0 {
			return "failed"
		}
	}
	return "completed"
}

// history is the stage's state history: "running @ ...", then its end.
func (s stage) history() []string {
	first, last := s.steps[0], s.steps[len(s.steps)-1]
	end := last.Start.Add(last.Elapsed)
	return []string{"running @ " + dateTime(first.Start), s.state() + " @ " + dateTime(end)}
}

// metric is one operation of one work in one stage: COSBench's Metrics.
type metric struct {
	stage   stage
	step    *result.Step
	work    int // 1-based position of the stream in the stage
	stream  *result.Stream
	t       result.OpTotal
	name    string // Op-Name as COSBench writes it
	typ     string // Op-Type
	latency *hdr.Histogram
}

// normal reports whether COSBench gives the metric a histogram column:
// an operation of a main work (its name is its sample type).
func (m metric) normal() bool { return m.step.Kind == result.KindMain }

func metricsOf(s stage) ([]metric, error) {
	var out []metric
	work := 0
	for _, step := range s.steps {
		for j := range step.Streams {
			st := &step.Streams[j]
			work++
			for _, t := range st.Totals {
				name, typ := opName(step.Kind, t.Op)
				m := metric{stage: s, step: step, work: work, stream: st, t: t, name: name, typ: typ}
				if t.LatencyHist != "" {
					h, err := result.DecodeHistogram(t.LatencyHist)
					if err != nil {
						return nil, fmt.Errorf("%s %s %s: %w", s.id, st.Name, t.Op, err)
					}
					m.latency = h
				}
				out = append(out, m)
			}
		}
	}
	return out, nil
}

// avgRes and avgProc are COSBench's average response and processing
// times in ms: processing is the response less the transfer, which is
// objbench's time to first byte where it has one, else all of it.
func (m metric) avgRes() float64 { return m.t.Latency.Avg / 1000 }

func (m metric) avgProc() float64 {
	if m.t.TTFB != nil && m.t.TTFB.Count > 0 {
		return m.t.TTFB.Avg / 1000
	}
	return m.avgRes()
}

func (m metric) succRatio() float64 {
	if m.t.Ops == 0 {
		return 0
	}
	return float64(m.t.OK) / float64(m.t.Ops)
}

// specOf decodes the workload the result ran (nil when it cannot).
func specOf(r *result.Run) *workload.Spec {
	var sp workload.Spec
	if len(r.Spec) == 0 || json.Unmarshal(r.Spec, &sp) != nil {
		return nil
	}
	return &sp
}
