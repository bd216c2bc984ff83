package cosbenchcsv

import (
	"encoding/json"
	"fmt"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/workload"
)

// stage is one step of the run as COSBench names a stage: "s3-main".
type stage struct {
	id   string
	step *result.Step
}

// stagesOf numbers the run's steps as COSBench numbers its workstages.
func stagesOf(r *result.Run) []stage {
	out := make([]stage, len(r.Steps))
	for i := range r.Steps {
		out[i] = stage{id: fmt.Sprintf("s%d-%s", i+1, safeName(r.Steps[i].Stage)), step: &r.Steps[i]}
	}
	return out
}

// state is the stage's final state in COSBench's words.
func (s stage) state() string {
	if len(s.step.FailedWorks) > 0 {
		return "failed"
	}
	return "completed"
}

// history is the stage's state history: "running @ ...", then its end.
func (s stage) history() []string {
	end := s.step.Start.Add(s.step.Elapsed)
	return []string{"running @ " + dateTime(s.step.Start), s.state() + " @ " + dateTime(end)}
}

// metric is one operation of one work in one stage: COSBench's Metrics.
type metric struct {
	stage   stage
	work    int // 1-based position of the stream in the step
	stream  *result.Stream
	t       result.OpTotal
	name    string // Op-Name as COSBench writes it
	typ     string // Op-Type
	latency *hdr.Histogram
}

// normal reports whether COSBench gives the metric a histogram column:
// an operation of a main work (its name is its sample type).
func (m metric) normal() bool { return m.stage.step.Kind == result.KindMain }

func metricsOf(s stage) ([]metric, error) {
	var out []metric
	for j := range s.step.Streams {
		st := &s.step.Streams[j]
		for _, t := range st.Totals {
			name, typ := opName(s.step.Kind, t.Op)
			m := metric{stage: s, work: j + 1, stream: st, t: t, name: name, typ: typ}
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
