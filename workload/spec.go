package workload

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// StageKind says what a stage does.
type StageKind string

// The stage kinds. Prepare writes each object of its streams' key spaces
// once; main runs the op mix; cleanup deletes everything the run created.
const (
	KindPrepare StageKind = "prepare"
	KindMain    StageKind = "main"
	KindCleanup StageKind = "cleanup"
)

// Spec is a whole workload.
type Spec struct {
	Name   string  `json:"name,omitempty"`
	Stages []Stage `json:"stages"`
}

// Stage is a set of streams that run together. With a concurrency sweep the
// stage runs once per value (a step each).
type Stage struct {
	Name    string    `json:"name"`
	Kind    StageKind `json:"kind"`
	Streams []Stream  `json:"streams"`
}

// OpWeight is one op of a mix with its relative weight.
type OpWeight struct {
	Op     string `json:"op"`
	Weight int    `json:"weight"`
}

// Stream is one group of workers with one op mix.
type Stream struct {
	Name        string     `json:"name"`
	Mix         []OpWeight `json:"mix"`
	Concurrency []int      `json:"concurrency"` // several values: a sweep
	Bounds      Bounds     `json:"bounds"`
	Objects     KeySpace   `json:"objects"`
	Size        int64      `json:"size_bytes"`
	RangeSize   int64      `json:"range_size_bytes,omitempty"` // GET reads this many bytes at a random offset
	Fsync       bool       `json:"fsync,omitempty"`
}

// Bounds end a stream at whichever limit comes first; zero means unset.
type Bounds struct {
	Duration time.Duration `json:"duration_ns,omitempty"`
	Ops      int64         `json:"ops,omitempty"`
	Bytes    int64         `json:"bytes,omitempty"`
}

// KeySpace is where a stream's objects live.
type KeySpace struct {
	// Prefix is relative to the run's namespace, unless Existing is set.
	Prefix string `json:"prefix"`
	// Count is how many objects prepare writes (and reads pick from).
	Count int `json:"count"`
	// Existing means: use the objects already under Prefix (found by
	// listing, relative to the store root) instead of preparing any.
	// They are only ever read, never overwritten or deleted.
	Existing bool `json:"existing,omitempty"`
}

// Steps is how many times the stage runs: the longest concurrency list for
// a main stage; prepare and cleanup run once.
func (s Stage) Steps() int {
	n := 1
	if s.Kind != KindMain {
		return n
	}
	for _, st := range s.Streams {
		n = max(n, len(st.Concurrency))
	}
	return n
}

// ConcurrencyAt is the stream's concurrency in step i of its stage (a
// shorter list keeps its last value).
func (s Stream) ConcurrencyAt(i int) int {
	if len(s.Concurrency) == 0 {
		return 1
	}
	return s.Concurrency[min(i, len(s.Concurrency)-1)]
}

// MaxConcurrency is the largest value of the stream's concurrency list.
func (s Stream) MaxConcurrency() int {
	n := 1
	for _, c := range s.Concurrency {
		n = max(n, c)
	}
	return n
}

// Writes reports whether the mix can create or delete objects.
func (s Stream) Writes() bool {
	for _, m := range s.Mix {
		if op := strings.ToLower(m.Op); op == "put" || op == "delete" || op == "write" {
			return true
		}
	}
	return false
}

// Validate lists every problem in the spec, each naming where it is.
func (sp Spec) Validate() []error {
	var errs []error
	if len(sp.Stages) == 0 {
		errs = append(errs, errors.New("workload has no stages"))
	}
	for i, st := range sp.Stages {
		where := fmt.Sprintf("stage %d (%s)", i+1, st.Name)
		switch st.Kind {
		case KindPrepare, KindMain, KindCleanup:
		default:
			errs = append(errs, fmt.Errorf("%s: unknown kind %q (want prepare, main or cleanup)", where, st.Kind))
		}
		if len(st.Streams) == 0 && st.Kind != KindCleanup {
			errs = append(errs, fmt.Errorf("%s: no streams", where))
		}
		for j, s := range st.Streams {
			errs = append(errs, s.validate(fmt.Sprintf("%s stream %d (%s)", where, j+1, s.Name), st.Kind)...)
		}
	}
	return errs
}

var knownOps = map[string]bool{"put": true, "get": true, "stat": true, "head": true, "delete": true, "list": true, "read": true, "write": true}

func (s Stream) validate(where string, kind StageKind) []error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(where+": "+format, a...)) }
	if kind == KindMain && len(s.Mix) == 0 {
		bad("no operations")
	}
	for _, m := range s.Mix {
		if !knownOps[strings.ToLower(m.Op)] {
			bad("unknown operation %q (want put, get, stat, delete or list)", m.Op)
		}
		if m.Weight <= 0 {
			bad("operation %s has weight %d; weights must be positive", m.Op, m.Weight)
		}
	}
	for _, c := range s.Concurrency {
		if c < 1 {
			bad("concurrency %d; must be at least 1", c)
		}
	}
	if s.Size < 0 {
		bad("size %d bytes is negative", s.Size)
	}
	if s.RangeSize < 0 || (s.RangeSize > 0 && s.RangeSize > s.Size && !s.Objects.Existing) {
		bad("range size %d must be between 1 and the object size %d", s.RangeSize, s.Size)
	}
	if s.Bounds.Duration < 0 || s.Bounds.Ops < 0 || s.Bounds.Bytes < 0 {
		bad("bounds must not be negative")
	}
	if kind == KindMain && s.Bounds == (Bounds{}) {
		bad("no bound: give a duration, an op count or a byte count")
	}
	if s.Objects.Count < 0 {
		bad("object count %d is negative", s.Objects.Count)
	}
	if s.Objects.Existing && s.Writes() {
		bad("writes and deletes need objects this run created; existing objects under %q are only ever read", s.Objects.Prefix)
	}
	return errs
}
