package htmlreport_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/objbench/objbench/report/htmlreport"
	"github.com/objbench/objbench/result"
)

// An AI training run's page draws AU against accelerators, with the
// target, and puts the run's AI warnings first (an objbench ai train run
// of version 10: a small data set, which the page must say).
func TestAIRunDrawsAUAgainstAccelerators(t *testing.T) {
	r, err := result.Read("../../result/testdata/v10.json")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := htmlreport.Write(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"Accelerator utilisation against accelerators", "target 70%", "smaller than 5x this client"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "no throughput-latency curve") {
		t.Error("an AI run's page asks for a sweep it does not need")
	}
}
