package loadgen

import (
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/objbench/objbench/workload"
)

// poissonChunk is how many slots a Poisson schedule draws at once.
const poissonChunk = 1024

// RatePacer is an open-loop schedule: slot i (the i-th op of the stream,
// counted from 0) starts at At(i) after the schedule's origin, whatever
// the store does. The schedule is a pure function of the rate and the seed.
//
// It works in operational time u (expected slots so far): uniform arrivals
// put slot i at u = i; Poisson arrivals draw, per chunk of K slots, the
// sorted positions of K uniform points in [cK, (c+1)K) (a Poisson process
// conditioned on its count: exponential gaps, exact mean rate). Time is
// then t = Λ⁻¹(u), Λ being the integral of the rate, which makes linear
// ramps follow the rate at every instant.
type RatePacer struct {
	r0, r1  float64 // ops/s at the start and, with a ramp, at its end
	ramp    float64 // ramp length in seconds; 0: constant rate
	rampU   float64 // Λ(ramp): slots in the ramp
	poisson bool
	seed    uint64

	mu     sync.Mutex
	chunks [2]chunk // the last chunks drawn: workers claim slots nearly in order
	next   int      // which of chunks to replace
}

type chunk struct {
	n int64 // chunk number, -1: empty
	u []float64
}

var _ Schedule = (*RatePacer)(nil)

// NewRatePacer makes the schedule of r; seed fixes Poisson arrivals.
func NewRatePacer(r workload.Rate, seed uint64) *RatePacer {
	p := &RatePacer{r0: r.PerSec, r1: r.PerSec, poisson: r.Arrival == workload.ArrivalPoisson, seed: seed}
	if r.Ramp > 0 {
		p.r1, p.ramp = r.To, r.Ramp.Seconds()
		p.rampU = (p.r0 + p.r1) / 2 * p.ramp
	}
	p.chunks[0].n, p.chunks[1].n = -1, -1
	return p
}

// At implements Schedule: when slot i starts after the origin; ok=false:
// the schedule has no slot i (a ramp down to zero ended).
func (p *RatePacer) At(i uint64) (time.Duration, bool) {
	u := float64(i)
	if p.poisson {
		u = p.poissonU(i)
	}
	t, ok := p.timeOf(u)
	if !ok || t > float64(math.MaxInt64/int64(time.Second)) {
		return 0, false
	}
	return time.Duration(t * float64(time.Second)), true
}

// timeOf inverts Λ: the instant (s) at which u slots are expected.
func (p *RatePacer) timeOf(u float64) (float64, bool) {
	if p.ramp == 0 {
		return u / p.r0, true
	}
	if u <= p.rampU {
		// Λ(t) = r0 t + a t², a = (r1-r0)/2R; this root form stays exact
		// for a = 0, for r0 = 0 and for ramps down.
		a := (p.r1 - p.r0) / (2 * p.ramp)
		d := p.r0 + math.Sqrt(max(p.r0*p.r0+4*a*u, 0))
		if d == 0 {
			return 0, true
		}
		return 2 * u / d, true
	}
	if p.r1 == 0 {
		return 0, false
	}
	return p.ramp + (u-p.rampU)/p.r1, true
}

// poissonU is slot i's operational time on a Poisson schedule.
func (p *RatePacer) poissonU(i uint64) float64 {
	n, j := int64(i/poissonChunk), i%poissonChunk
	p.mu.Lock()
	defer p.mu.Unlock()
	for k := range p.chunks {
		if p.chunks[k].n == n {
			return p.chunks[k].u[j]
		}
	}
	c := &p.chunks[p.next]
	p.next = 1 - p.next
	c.n = n
	if c.u == nil {
		c.u = make([]float64, poissonChunk)
	}
	drawChunk(c.u, p.seed, n)
	return c.u[j]
}

// drawChunk fills u with the sorted positions of len(u) uniform points in
// chunk n's span [nK, (n+1)K): cumulative sums of K+1 exponential gaps,
// scaled to the span, are distributed exactly so.
func drawChunk(u []float64, seed uint64, n int64) {
	rng := rand.New(rand.NewPCG(seed, uint64(n)^0x9e3779b97f4a7c15))
	k := float64(len(u))
	var sum float64
	for j := range u {
		sum += rng.ExpFloat64()
		u[j] = sum
	}
	sum += rng.ExpFloat64()
	base := float64(n) * k
	for j := range u {
		u[j] = base + u[j]/sum*k
	}
}
