package report

import (
	"fmt"
	"io"
	"strconv"

	"github.com/objbench/objbench/result"
)

// stageName is a step's stage with the values a sweep gave it besides
// concurrency, so the rows of a size sweep tell themselves apart.
func stageName(s *result.Step) string {
	n := stepName(s)
	if s.Repetition > 0 {
		n += " #" + strconv.Itoa(s.Repetition)
	}
	return n
}

// stepName is the step as every repetition of it shares the name.
func stepName(s *result.Step) string {
	if s.Sweep == "" {
		return s.Stage
	}
	return s.Stage + " [" + s.Sweep + "]"
}

// writeStepNotes prints what a step did besides ops (buckets created or
// kept, why the workflow stopped); a step without streams gets a line.
func writeStepNotes(w io.Writer, s *result.Step) {
	if len(s.Streams) == 0 {
		fmt.Fprintf(w, "%s (%s): %.2f s\n", s.Stage, s.Kind, s.Elapsed.Seconds())
	}
	for _, n := range s.Notes {
		fmt.Fprintf(w, "  %s: %s\n", s.Stage, n)
	}
	for _, f := range s.FailedWorks {
		fmt.Fprintf(w, "  %s: FAILED (afr): %s\n", s.Stage, f)
	}
}
