package report

import (
	"fmt"
	"io"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
)

// Failures is an op's failed ops: those that ended in an error class that
// is not an answer of the target (storage.Outcome: 412, 304, not
// implemented), which are counted apart.
func Failures(t result.OpTotal) int64 { return t.Failed() }

// writeOutcomes states the answers that are neither successes nor
// failures: conditions that did not hold, objects not modified, and what
// the target does not implement.
func writeOutcomes(w io.Writer, x row) {
	where := x.where()
	if n := x.t.Errors[storage.ClassPrecond]; n > 0 {
		fmt.Fprintf(w, "outcomes %s: %d precondition_failed (412: the condition did not hold, nothing written; not failures: timed and in OPS/S like successes)\n", where, n)
	}
	if n := x.t.Errors[storage.ClassNotMod]; n > 0 {
		fmt.Fprintf(w, "outcomes %s: %d not_modified (304: unchanged, nothing transferred; not failures: timed and in OPS/S like successes)\n", where, n)
	}
	if n := x.t.Errors[storage.ClassNotImpl]; n > 0 {
		fmt.Fprintf(w, "not implemented by this target: %s %d (not_implemented; the op stops after %d in a row)\n", where, n, 100)
	}
}
