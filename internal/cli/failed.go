package cli

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
)

// failedWhy says what made the main steps fail whole, in full (under -q
// nothing else says it): the target does not implement what the run asked
// for, or the errors by class; canceled ops, with what to change.
func failedWhy(res *result.Run, grace time.Duration) string {
	var failed, notImpl, canceled int64
	classes := map[string]int64{}
	for _, st := range res.Steps {
		if st.Kind != result.KindMain {
			continue
		}
		for _, s := range st.Streams {
			for _, t := range s.Totals {
				failed += t.Ops - t.OK
				notImpl += t.Errors[storage.ClassNotImpl]
				canceled += t.Errors[storage.ClassCanceled]
				for c, n := range t.Errors {
					if !storage.Outcome(c) {
						classes[c] += n
					}
				}
			}
		}
	}
	if failed > 0 && notImpl == failed {
		return "the target does not implement what the run asked for: " + storage.ClassNotImpl
	}
	names := make([]string, 0, len(classes))
	for c, n := range classes {
		names = append(names, fmt.Sprintf("%s=%d", c, n))
	}
	sort.Strings(names)
	why := "errors by class: " + strings.Join(names, " ")
	if canceled > 0 && !res.Interrupted {
		why += fmt.Sprintf("; the %d canceled ops were still in flight --grace %v after the step stopped issuing: "+
			"ops this large need longer; raise --grace, or end the step by --ops instead of --duration", canceled, grace)
	}
	return why
}
