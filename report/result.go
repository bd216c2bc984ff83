package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/objbench/objbench/atomicfile"
	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/sysmon"
	"github.com/objbench/objbench/workload"
)

// SchemaVersion is the result file format; readers refuse newer versions.
const SchemaVersion = 1

// RunInfo identifies a run and says how it ended; a result file and its
// summary both begin with it.
type RunInfo struct {
	Schema      int       `json:"schema"`
	Tool        Tool      `json:"tool"`
	RunID       string    `json:"run_id"`
	Started     time.Time `json:"started"`
	Finished    time.Time `json:"finished"`
	Interrupted bool      `json:"interrupted"`
	Aborted     string    `json:"aborted,omitempty"`
}

// Result is one run's result file.
type Result struct {
	RunInfo
	AbortDetail string               `json:"abort_detail,omitempty"`
	CleanedUp   bool                 `json:"cleaned_up"`
	Machine     sysmon.Machine       `json:"machine"`
	Target      Target               `json:"target"`
	Spec        workload.Spec        `json:"spec"`
	Steps       []loadgen.StepResult `json:"steps"`
	// System is the per-second system timeline and the verdict; absent
	// in files from before objbench watched the machine.
	System *System `json:"system,omitempty"`
}

// Tool identifies the program that wrote the result.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Target describes what was measured. It never holds credentials.
type Target struct {
	Kind      string `json:"kind"` // "s3" or "fs"
	Endpoint  string `json:"endpoint,omitempty"`
	Bucket    string `json:"bucket,omitempty"`
	Region    string `json:"region,omitempty"`
	PathStyle bool   `json:"path_style,omitempty"`
	Embedded  bool   `json:"embedded,omitempty"` // objbench's own in-process server
	Root      string `json:"root,omitempty"`     // file system directory
	// How requests were signed and checksummed (S3).
	Signing    string `json:"signing,omitempty"`
	Checksums  string `json:"checksums,omitempty"`
	HTTPClient string `json:"http_client,omitempty"` // "direct" or "std"
	Namespace  string `json:"namespace"`
}

// Write stores r at path atomically (a temporary file renamed into place),
// creating the directory if needed: a reader never sees half a file.
func Write(path string, r *Result) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, 0o644, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		if err := enc.Encode(r); err != nil {
			return fmt.Errorf("encode result: %w", err)
		}
		return nil
	})
}

// Read loads a result file and recomputes every total from its per-second
// records, so what is reported never depends on stored summaries.
func Read(path string) (*Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// Decode reads a result document from rd and recomputes its totals.
func Decode(rd io.Reader) (*Result, error) {
	var r Result
	dec := json.NewDecoder(rd)
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("not an objbench result file: %w", err)
	}
	switch {
	case r.Schema == 0:
		return nil, errors.New("not an objbench result file (no schema version)")
	case r.Schema > SchemaVersion:
		return nil, fmt.Errorf("result schema %d is newer than this objbench understands (%d): upgrade objbench", r.Schema, SchemaVersion)
	}
	for i := range r.Steps {
		for j := range r.Steps[i].Streams {
			s := &r.Steps[i].Streams[j]
			totals, err := metrics.Summarize(s.Seconds, s.Window)
			if err != nil {
				return nil, fmt.Errorf("step %d stream %s: %w", i, s.Name, err)
			}
			s.Totals = totals
		}
	}
	return &r, nil
}

// FailedMainSteps names the main steps in which ops were issued and none
// succeeded: a run with such a step measured nothing.
func (r *Result) FailedMainSteps() []string {
	var names []string
	for _, s := range r.Steps {
		var ops, ok int64
		for _, st := range s.Streams {
			for _, t := range st.Totals {
				ops, ok = ops+t.Ops, ok+t.OK
			}
		}
		if s.Kind == workload.KindMain && ops > 0 && ok == 0 {
			names = append(names, fmt.Sprintf("%s step %d", s.Stage, s.Step+1))
		}
	}
	return names
}

// OpTotals sums op's totals over the steps of stages of kind: ops issued,
// ops that succeeded and bytes moved.
func (r *Result) OpTotals(kind workload.StageKind, op string) (ops, ok, bytes int64) {
	for _, st := range r.Steps {
		if st.Kind != kind {
			continue
		}
		for _, s := range st.Streams {
			for _, t := range s.Totals {
				if t.Op == op {
					ops, ok, bytes = ops+t.Ops, ok+t.OK, bytes+t.Bytes
				}
			}
		}
	}
	return ops, ok, bytes
}
