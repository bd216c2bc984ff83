package result

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/objbench/objbench/atomicfile"
)

// Write stores r at path atomically (a temporary file renamed into place),
// creating the directory if needed: a reader never sees half a file.
func Write(path string, r *Run) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, 0o644, func(w io.Writer) error { return Encode(w, r) })
}

// Encode writes r as the result file's JSON.
func Encode(w io.Writer, r *Run) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	return nil
}

// Read loads a result file and recomputes every total from its per-second
// records, so what is reported never depends on stored summaries.
func Read(path string) (*Run, error) {
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

// Decode reads a result document of any version up to Version from rd and
// recomputes its totals.
func Decode(rd io.Reader) (*Run, error) {
	var r Run
	dec := json.NewDecoder(rd)
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("not an objbench result file: %w", err)
	}
	switch {
	case r.Schema == 0:
		return nil, errors.New("not an objbench result file (no schema version)")
	case r.Schema < 0 || r.Schema > Version:
		return nil, fmt.Errorf("result schema %d is newer than this objbench understands (%d): upgrade objbench", r.Schema, Version)
	}
	// Version 1 files decode as they are: their bytes were spread over
	// the seconds an op covered and they have no ticks, so their window
	// edges count pro rata.
	for i := range r.Steps {
		r.Steps[i].NameStreams() // files written before streams that share a name were told apart
		for j := range r.Steps[i].Streams {
			s := &r.Steps[i].Streams[j]
			totals, err := Summarize(s.Seconds, s.Window)
			if err != nil {
				return nil, fmt.Errorf("step %d stream %s: %w", i, s.Name, err)
			}
			s.Totals = totals
		}
	}
	return &r, nil
}
