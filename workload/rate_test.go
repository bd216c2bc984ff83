package workload_test

import (
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/workload"
)

func TestParseRate(t *testing.T) {
	for _, c := range []struct {
		in   string
		want workload.Rate
		err  string
	}{
		{"2000/s", workload.Rate{PerSec: 2000}, ""},
		{"2000", workload.Rate{PerSec: 2000}, ""},
		{"120/m", workload.Rate{PerSec: 2}, ""},
		{"100/s..5000/s", workload.Rate{PerSec: 100, To: 5000}, ""},
		{"0..50", workload.Rate{PerSec: 0, To: 50}, ""},
		{"fast", workload.Rate{}, `bad rate "fast"`},
		{"10/h", workload.Rate{}, `unit "h"`},
		{"-5/s", workload.Rate{}, `bad rate "-5/s"`},
		{"100/s..x", workload.Rate{}, `bad rate "100/s..x"`},
	} {
		got, err := workload.ParseRate(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: got %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
}

func TestYAMLRate(t *testing.T) {
	sp := decodeOK(t, "r.yaml", `stages:
  - kind: main
    duration: 2s
    ops: {write: 100}
    objects: {prefix: w/}
    concurrency: 16
    rate: 100/s..5000/s
    ramp: 60s
    arrival: Poisson
`)
	r := sp.Stages[0].Streams[0].Rate
	want := workload.Rate{PerSec: 100, To: 5000, Ramp: time.Minute, Arrival: workload.ArrivalPoisson}
	if r == nil || *r != want {
		t.Fatalf("rate %+v, want %+v", r, want)
	}
}

func TestYAMLRateSteps(t *testing.T) {
	sp := decodeOK(t, "r.yaml", `stages:
  - kind: main
    duration: [2s, 3s]
    ops: {write: 100}
    objects: {prefix: w/}
    rate: [100/s, 200/s, 400/s]
    arrival: poisson
`)
	st := sp.Stages[0]
	if st.Steps() != 3 {
		t.Fatalf("%d steps, want one per rate", st.Steps())
	}
	s := st.Streams[0].At(2)
	if s.Rate == nil || s.Rate.PerSec != 400 || s.Rate.Arrival != workload.ArrivalPoisson || s.Bounds.Duration != 3*time.Second {
		t.Errorf("step 3: rate %+v, bounds %+v", s.Rate, s.Bounds)
	}
	if l := st.StepLabel(1); !strings.Contains(l, "rate=200/s poisson") {
		t.Errorf("step label %q", l)
	}
}

func TestRateValidation(t *testing.T) {
	base := workload.Stream{Name: "s", Mix: []workload.OpWeight{{Op: "put", Weight: 1}}, Concurrency: []int{1},
		Bounds: workload.Bounds{Ops: 1}}
	for _, c := range []struct {
		rate workload.Rate
		want string
	}{
		{workload.Rate{}, "rate must be above 0/s"},
		{workload.Rate{PerSec: 10, To: 20}, "a ramp needs its length"},
		{workload.Rate{PerSec: 10, Arrival: "bursty"}, `arrival "bursty"`},
		{workload.Rate{PerSec: 2e6}, "above"},
	} {
		s := base
		r := c.rate
		s.Rate = &r
		sp := workload.Spec{Stages: []workload.Stage{{Name: "m", Kind: result.KindMain, Streams: []workload.Stream{s}}}}
		errs := sp.Validate()
		if len(errs) == 0 || !strings.Contains(errs[0].Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.rate, errs, c.want)
		}
	}
}
