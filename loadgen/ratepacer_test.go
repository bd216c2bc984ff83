package loadgen_test

import (
	"math"
	"testing"
	"time"

	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/workload"
)

func at(t *testing.T, p *loadgen.RatePacer, i uint64) time.Duration {
	t.Helper()
	d, ok := p.At(i)
	if !ok {
		t.Fatalf("no slot %d", i)
	}
	return d
}

func TestUniformScheduleIsEvenlySpaced(t *testing.T) {
	p := loadgen.NewRatePacer(workload.Rate{PerSec: 200}, 1)
	for _, i := range []uint64{0, 1, 2, 199, 200, 123456} {
		if got, want := at(t, p, i), time.Duration(i)*5*time.Millisecond; got != want {
			t.Errorf("slot %d at %v, want %v", i, got, want)
		}
	}
}

func TestPoissonScheduleHasTheRateAndExponentialGaps(t *testing.T) {
	const n, rate = 100_000, 1000.0
	p := loadgen.NewRatePacer(workload.Rate{PerSec: rate, Arrival: workload.ArrivalPoisson}, 42)
	var sum, sumSq float64
	prev := at(t, p, 0)
	for i := uint64(1); i < n; i++ {
		cur := at(t, p, i)
		if cur < prev {
			t.Fatalf("slot %d at %v before slot %d at %v", i, cur, i-1, prev)
		}
		g := (cur - prev).Seconds()
		sum, sumSq = sum+g, sumSq+g*g
		prev = cur
	}
	mean := sum / (n - 1)
	cv := math.Sqrt(sumSq/(n-1)-mean*mean) / mean
	if math.Abs(mean*rate-1) > 0.01 {
		t.Errorf("mean gap %v s, want %v within 1%%", mean, 1/rate)
	}
	if math.Abs(cv-1) > 0.05 { // exponential gaps: standard deviation = mean
		t.Errorf("gap coefficient of variation %.3f, want 1 (exponential)", cv)
	}
	again := loadgen.NewRatePacer(workload.Rate{PerSec: rate, Arrival: workload.ArrivalPoisson}, 42)
	other := loadgen.NewRatePacer(workload.Rate{PerSec: rate, Arrival: workload.ArrivalPoisson}, 43)
	for _, i := range []uint64{5000, 17, 99_999, 3} { // out of order: still a pure function of i
		if at(t, again, i) != at(t, p, i) {
			t.Errorf("slot %d differs for the same seed", i)
		}
	}
	if at(t, other, 5000) == at(t, p, 5000) {
		t.Error("another seed gave the same schedule")
	}
}

// A linear ramp puts Λ(t) = ∫rate slots before t at every instant.
func TestRampFollowsTheIntegralOfTheRate(t *testing.T) {
	r0, r1, ramp := 100.0, 5000.0, 60.0
	lambda := func(t float64) float64 {
		if t <= ramp {
			return r0*t + (r1-r0)/(2*ramp)*t*t
		}
		return (r0+r1)/2*ramp + r1*(t-ramp)
	}
	p := loadgen.NewRatePacer(workload.Rate{PerSec: r0, To: r1, Ramp: time.Minute}, 1)
	for _, sec := range []float64{0.5, 1, 10, 30, 59.9, 60, 61, 90} {
		k := uint64(math.Floor(lambda(sec)))
		before, after := at(t, p, k).Seconds(), at(t, p, k+1).Seconds()
		if before > sec+1e-9 || after < sec-1e-9 {
			t.Errorf("t=%vs: slot %d at %v s, slot %d at %v s; want them around t", sec, k, before, k+1, after)
		}
	}
	down := loadgen.NewRatePacer(workload.Rate{PerSec: 100, To: 0, Ramp: 10 * time.Second}, 1)
	if d := at(t, down, 499); d > 10*time.Second { // 500 slots in the ramp
		t.Errorf("slot 499 at %v, want within the 10s ramp", d)
	}
	if _, ok := down.At(501); ok {
		t.Error("a ramp down to 0/s must end its schedule")
	}
}
