package workload

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Arrival processes of an open-loop stream.
const (
	ArrivalUniform = "uniform" // slot i at i/rate: evenly spaced
	ArrivalPoisson = "poisson" // exponential gaps of mean 1/rate (seeded)
)

// Rate makes a main-stage stream open loop: ops start on a schedule fixed
// in advance, whatever the store does. The stream's concurrency is the
// workers started at once; when a slot comes due and every worker is busy,
// another is started, up to MaxWorkers (0: enough for the peak rate while
// ops take as long as the request timeout allows, see loadgen.WorkerCap).
// A slot that finds MaxWorkers busy is dropped (counted), never issued late.
type Rate struct {
	PerSec float64 `json:"per_s"`
	// To and Ramp make a linear ramp from PerSec to To over Ramp; after the
	// ramp the rate stays at To.
	To         float64       `json:"to_per_s,omitempty"`
	Ramp       time.Duration `json:"ramp_ns,omitempty"`
	Arrival    string        `json:"arrival,omitempty"` // "" is uniform
	MaxWorkers int           `json:"max_workers,omitempty"`
}

// String is the rate as the flags write it ("2000/s", "100/s..5000/s over 1m0s").
func (r Rate) String() string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) + "/s" }
	s := f(r.PerSec)
	if r.Ramp > 0 {
		s += ".." + f(r.To) + " over " + r.Ramp.String()
	}
	if r.Arrival != "" && r.Arrival != ArrivalUniform {
		s += " " + r.Arrival
	}
	return s
}

// ParseRate reads "2000/s", "2000", "120/m" or a ramp "100/s..5000/s"
// (whose length is given apart, e.g. by --ramp). For a ramp, To is set
// and Ramp is left for the caller.
func ParseRate(s string) (Rate, error) {
	from, to, ramp := strings.Cut(strings.TrimSpace(s), "..")
	a, err := parsePerSec(from)
	if err != nil {
		return Rate{}, fmt.Errorf("bad rate %q: %v", s, err)
	}
	r := Rate{PerSec: a}
	if ramp {
		if r.To, err = parsePerSec(to); err != nil {
			return Rate{}, fmt.Errorf("bad rate %q: %v", s, err)
		}
	}
	return r, nil
}

func parsePerSec(s string) (float64, error) {
	s = strings.TrimSpace(s)
	unit := 1.0
	if num, per, ok := strings.Cut(s, "/"); ok {
		switch strings.TrimSpace(per) {
		case "s", "sec":
			unit = 1
		case "m", "min":
			unit = 1.0 / 60
		case "ms":
			unit = 1000
		default:
			return 0, fmt.Errorf("unit %q: want /s, /m or /ms", per)
		}
		s = strings.TrimSpace(num)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, fmt.Errorf("want a number of ops per second, like 2000/s")
	}
	return v * unit, nil
}

// MaxRate bounds a schedule: beyond it the gaps fall below a microsecond
// and one client could not keep up anyway.
const MaxRate = 1e6

// Validate reports each problem of the rate through bad.
func (r *Rate) Validate(bad func(string, ...any)) {
	if r == nil {
		return
	}
	ramp := r.Ramp > 0 || r.To > 0
	switch {
	case r.PerSec > MaxRate || r.To > MaxRate:
		bad("rate %v is above %g/s", r, float64(MaxRate))
	case r.Ramp < 0:
		bad("ramp %v is negative", r.Ramp)
	case ramp && r.Ramp == 0:
		bad("rate %v: a ramp needs its length (ramp: 60s)", r)
	case r.PerSec <= 0 && !(ramp && r.To > 0):
		bad("rate must be above 0/s (or ramp up from 0 to a rate above 0)")
	case r.PerSec < 0 || r.To < 0:
		bad("rate must not be negative")
	}
	if a := r.Arrival; a != "" && a != ArrivalUniform && a != ArrivalPoisson {
		bad("arrival %q: want uniform or poisson", a)
	}
}

// ParseArrival accepts "uniform" or "poisson" in any case.
func ParseArrival(s string) (string, error) {
	switch a := strings.ToLower(strings.TrimSpace(s)); a {
	case ArrivalUniform, ArrivalPoisson:
		return a, nil
	}
	return "", fmt.Errorf("bad arrival %q: want uniform or poisson", s)
}
