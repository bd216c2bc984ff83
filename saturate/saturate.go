// Package saturate finds a store's knee: it steps the offered rate (or
// the concurrency) up until the latency objective, the error bound or throughput growth fails,
// and reports the latency–throughput curve and the highest rate that met
// the objective. It measures nothing itself: a Measure function runs one
// open-loop step at a rate (loadgen does, in objbench).
//
// This package must not print, exit, or read flags or the environment.
package saturate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/objbench/objbench/result"
)

// Objective is what a step must meet.
type Objective struct {
	// P99 bounds the response-time p99 (from intended start); 0: none.
	P99 time.Duration
	// MaxErrorRatio bounds (errors + dropped slots) / slots; 0: 1%.
	MaxErrorRatio float64
	// MinGrowth is the least achieved-throughput growth from one step to
	// the next, as a fraction of the offered growth, for throughput to
	// count as still growing (0: 0.5).
	MinGrowth float64
}

// Point is one step of the curve, as the result file keeps it.
type Point = result.SaturationPoint

// defaultMaxErrorRatio bounds (errors + dropped) / slots when the
// objective does not.
const defaultMaxErrorRatio = 0.01

// Config is one search.
type Config struct {
	Start, Max float64 // ops/s: the first rate and the last one tried
	Factor     float64 // each step multiplies the rate (default 1.5)
	Objective  Objective
	// Whole rounds each step up to a whole number, at least one more than
	// the last (for concurrency).
	Whole bool
	// Deadline bounds the whole search (0: none); steps that would start
	// after it are not run.
	Deadline time.Time
	// Measure runs one step at rate and returns its point (Met and Why
	// are filled in by Search).
	Measure func(ctx context.Context, rate float64) (Point, error)
}

// Result is the curve and its knee.
type Result struct {
	Points []Point `json:"points"`
	// Best is the highest rate that met the objective; it is the Knee
	// only when the search went past it: the next step missed the
	// objective or throughput stopped growing. A search stopped by its
	// time limit, an interrupt or the maximum rate found no knee.
	Best      *Point `json:"best,omitempty"`
	Knee      *Point `json:"knee,omitempty"`
	StoppedBy string `json:"stopped_by"`
}

// Search steps the rate from Start by Factor until a step misses the
// objective, throughput stops growing, Max is passed or the deadline or
// ctx ends.
func Search(ctx context.Context, c Config) (Result, error) {
	if c.Factor == 0 {
		c.Factor = 1.5
	}
	if c.Start <= 0 || c.Max < c.Start || c.Factor <= 1 || c.Measure == nil {
		return Result{}, fmt.Errorf("saturate: want 0 < start <= max, factor > 1 and a Measure (got %v, %v, %v)", c.Start, c.Max, c.Factor)
	}
	next := func(r float64) float64 {
		if c.Whole {
			return max(math.Ceil(r*c.Factor), r+1)
		}
		return r * c.Factor
	}
	var res Result
	for rate := c.Start; ; rate = next(rate) {
		rate = min(rate, c.Max)
		switch {
		case ctx.Err() != nil:
			res.StoppedBy = "interrupted"
			return res, nil
		case !c.Deadline.IsZero() && time.Now().After(c.Deadline):
			res.StoppedBy = "time limit"
			return res, nil
		}
		p, err := c.Measure(ctx, rate)
		if err != nil {
			if errors.Is(err, context.Canceled) {
				res.StoppedBy = "interrupted"
				return res, nil
			}
			return res, err
		}
		p.Rate = rate
		judge(&p, c.Objective, res.Points)
		res.Points = append(res.Points, p)
		if !p.Met {
			res.StoppedBy, res.Knee = p.Why, res.Best
			return res, nil
		}
		res.Best = &res.Points[len(res.Points)-1]
		if rate >= c.Max {
			res.StoppedBy = "reached the maximum rate"
			return res, nil
		}
	}
}

// judge fills p.Met and p.Why against o, given the points before it.
func judge(p *Point, o Objective, before []Point) {
	maxErr := o.MaxErrorRatio
	if maxErr == 0 {
		maxErr = defaultMaxErrorRatio
	}
	growth := o.MinGrowth
	if growth == 0 {
		growth = 0.5
	}
	if p.Slots > 0 {
		p.ErrorRatio = float64(p.Errors+p.Dropped) / float64(p.Slots)
	}
	p.Met = true
	switch {
	case o.P99 > 0 && p.P99 > o.P99:
		p.Met, p.Why = false, fmt.Sprintf("p99 %v > %v", p.P99.Round(10*time.Microsecond), o.P99)
	case p.ErrorRatio > maxErr:
		p.Met, p.Why = false, fmt.Sprintf("error+dropped ratio %.2f%% > %.2f%%", 100*p.ErrorRatio, 100*maxErr)
	case len(before) > 0:
		// The load offered more, in ops/s: what the last step achieved,
		// scaled by the step (exact for rates served in full, and the
		// same rule when the stepped value is concurrency).
		prev := before[len(before)-1]
		offered := prev.Achieved * (p.Rate/prev.Rate - 1)
		if offered > 0 && p.Achieved-prev.Achieved < growth*offered {
			p.Met, p.Why = false, fmt.Sprintf("throughput stopped growing (%.0f/s -> %.0f/s, %.0f/s more offered)", prev.Achieved, p.Achieved, offered)
		}
	}
}
