package report

import (
	"encoding/json"
	"io"

	"github.com/objbench/objbench/result"
)

// Summary is a result without its per-second records: what a script needs
// to read the numbers the tables show, recomputed from those records.
type Summary struct {
	result.RunInfo
	Target result.Target `json:"target"`
	Steps  []StepSummary `json:"steps"`
	// Verdicts on the main steps, when the run watched the machine.
	Verdicts []result.StepVerdict `json:"verdicts,omitempty"`
}

// StepSummary is one step's totals.
type StepSummary struct {
	Stage    string          `json:"stage"`
	Kind     string          `json:"kind"`
	Step     int             `json:"step"`
	Sweep    string          `json:"sweep,omitempty"`
	ElapsedS float64         `json:"elapsed_s"`
	CPUS     float64         `json:"cpu_s"` // the process's user + system CPU time
	Streams  []StreamSummary `json:"streams"`
	Notes    []string        `json:"notes,omitempty"`
}

// StreamSummary is one stream's per-op totals; rates are over Window.
type StreamSummary struct {
	Name        string           `json:"name"`
	Concurrency int              `json:"concurrency"`
	StoppedBy   string           `json:"stopped_by"`
	Window      result.Window    `json:"window"`
	Ops         []result.OpTotal `json:"ops"`
}

// NewSummary drops r's per-second records and keeps its totals.
func NewSummary(r *result.Run) Summary {
	s := Summary{RunInfo: r.RunInfo, Target: r.Target, Steps: []StepSummary{}}
	if r.System != nil {
		s.Verdicts = r.System.Verdicts
	}
	for _, st := range r.Steps {
		ss := StepSummary{Stage: st.Stage, Kind: st.Kind, Step: st.Step, Sweep: st.Sweep, ElapsedS: st.Elapsed.Seconds(),
			CPUS: (st.CPUUser + st.CPUSys).Seconds(), Streams: []StreamSummary{}, Notes: st.Notes}
		for _, str := range st.Streams {
			ss.Streams = append(ss.Streams, StreamSummary{Name: str.Name, Concurrency: str.Concurrency,
				StoppedBy: str.StoppedBy, Window: str.Window, Ops: str.Totals})
		}
		s.Steps = append(s.Steps, ss)
	}
	return s
}

// WriteJSON writes r's summary as indented JSON.
func WriteJSON(w io.Writer, r *result.Run) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(NewSummary(r))
}
