package live

import (
	"fmt"
	"time"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/workload"
)

// records is the run so far, as the result file will hold it, and its
// totals for /metrics. Records are only ever appended.
type records struct {
	steps   []result.Step
	samples []result.Sample
	label   string // the current step, in words
	streams int    // the current step's streams
	totals  totals
	done    bool   // Finish was called
	outcome string // how the run ended (Finish)
}

// startStep appends step i of stage st.
func (r *records) startStep(st workload.Stage, i int) {
	r.steps = append(r.steps, result.Step{Stage: st.Name, Kind: string(st.Kind), Step: i, Start: time.Now()})
	r.label, r.streams = st.Name, len(st.Streams)
	if len(st.Streams) > 0 {
		r.label = fmt.Sprintf("%s %d/%d", st.Name, i+1, st.Steps())
		if l := st.StepLabel(i); l != "" {
			r.label += ", " + l
		}
	}
}

// closeStep fixes the current step's length.
func (r *records) closeStep() {
	if n := len(r.steps); n > 0 {
		r.steps[n-1].Elapsed = time.Since(r.steps[n-1].Start)
	}
}

// addSecond appends one second of one stream to the current step (there
// is one) and returns the step's index and stage.
func (r *records) addSecond(stream string, s result.Second) (int, string) {
	n := len(r.steps)
	step := &r.steps[n-1]
	j := 0
	for j < len(step.Streams) && step.Streams[j].Name != stream {
		j++
	}
	if j == len(step.Streams) {
		step.Streams = append(step.Streams, result.Stream{Name: stream})
	}
	step.Streams[j].Seconds = append(step.Streams[j].Seconds, s)
	return n - 1, step.Stage
}

// runS is when second t of the current step ended, in seconds since the
// first step began (the charts' x axis); false before any step.
func (r *records) runS(t int64) (float64, bool) {
	n := len(r.steps)
	if n == 0 {
		return 0, false
	}
	return round(r.steps[n-1].Start.Sub(r.steps[0].Start).Seconds()+float64(t+1), 3), true
}

// snapshot is the run so far as a partial result, for the charts. Records
// are only ever appended, so copies of the slices stay valid.
func (r *records) snapshot(runID string, started time.Time) *result.Run {
	res := &result.Run{RunInfo: result.RunInfo{RunID: runID, Started: started}}
	res.Steps = make([]result.Step, len(r.steps))
	copy(res.Steps, r.steps)
	for i := range res.Steps {
		st := &res.Steps[i]
		st.Streams = append([]result.Stream(nil), st.Streams...)
		for j := range st.Streams {
			st.Streams[j].Seconds = st.Streams[j].Seconds[:len(st.Streams[j].Seconds):len(st.Streams[j].Seconds)]
		}
		if i == len(res.Steps)-1 && !r.done {
			st.Elapsed = time.Since(st.Start)
		}
	}
	if len(r.samples) > 0 {
		res.System = &result.System{Timeline: result.Timeline{Samples: r.samples[:len(r.samples):len(r.samples)]}}
	}
	return res
}
