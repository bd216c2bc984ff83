package workload

import (
	"strings"
	"testing"

	"github.com/objbench/objbench/metrics"
)

// The workload's op names and the load generator's (metrics.ParseOp) are
// two lists; every name a workload accepts must mean the same op to both,
// or a spec could validate and then fail mid-run.
func TestOpVocabulariesAgree(t *testing.T) {
	for alias, canon := range opAliases {
		for _, spelled := range []string{alias, " " + strings.ToUpper(alias) + " "} {
			op, err := metrics.ParseOp(spelled)
			if err != nil {
				t.Errorf("workload accepts %q (%s), metrics.ParseOp rejects it: %v", spelled, canon, err)
				continue
			}
			if c, _ := CanonicalOp(spelled); !strings.EqualFold(strings.ReplaceAll(op.String(), "_", "-"), c) {
				t.Errorf("%q: workload says %s, metrics says %s", spelled, c, op)
			}
		}
	}
}
