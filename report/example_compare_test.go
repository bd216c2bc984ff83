package report_test

import (
	"fmt"

	"github.com/objbench/objbench/report"
)

// Per-second ops of two runs: is the second one faster, or is it noise?
func ExampleMannWhitney() {
	before := []float64{812, 798, 805, 820, 801, 809, 795, 815}
	after := []float64{861, 849, 870, 855, 866, 858, 851, 872}
	u, p := report.MannWhitney(before, after)
	fmt.Printf("U=%.0f p=%.4f significant=%v\n", u, p, p < 0.05)
	// Output: U=0 p=0.0009 significant=true
}

func ExampleParseThreshold() {
	t, err := report.ParseThreshold("GET:p99>+10%")
	fmt.Println(t.Op, t.Metric, t.Above, t.Pct, err)
	// Output: GET p99 true 10 <nil>
}
