package result

import "time"

// Saturation is a knee search (objbench saturate; version 14): what it
// stepped, its objective, each step's point and the knee. The steps
// themselves are the run's steps, a main step per point (its Sweep names
// the rate or the workers).
type Saturation struct {
	By            string            `json:"by"` // "rate" (open loop, response time) or "concurrency" (closed loop)
	P99           time.Duration     `json:"objective_p99_ns"`
	MaxErrorRatio float64           `json:"max_error_ratio"`
	Points        []SaturationPoint `json:"points"`
	// Best is the highest step that met the objective; it is the Knee
	// only when the search went past it (the next step missed the
	// objective or throughput stopped growing).
	Best      *SaturationPoint `json:"best,omitempty"`
	Knee      *SaturationPoint `json:"knee,omitempty"`
	StoppedBy string           `json:"stopped_by"`
}

// SaturationPoint is one step of the curve.
type SaturationPoint struct {
	// Rate is the stepped value: the offered rate (ops/s), or the
	// concurrency when the search steps workers (closed loop).
	Rate       float64       `json:"rate_per_s"`
	Achieved   float64       `json:"achieved_per_s"` // ok ops per second over the step's window
	MiBPerSec  float64       `json:"mib_per_s"`
	P50        time.Duration `json:"p50_ns"` // response time (open loop), else latency
	P99        time.Duration `json:"p99_ns"`
	Slots      int64         `json:"slots"` // issued + dropped
	Errors     int64         `json:"errors"`
	Dropped    int64         `json:"dropped"`
	ErrorRatio float64       `json:"error_ratio"` // (errors + dropped) / slots
	Met        bool          `json:"met"`
	Why        string        `json:"why,omitempty"` // what failed, when not Met
}
