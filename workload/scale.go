package workload

import (
	"math"
	"slices"
	"time"
)

// minScaledDuration keeps a scaled duration from reaching zero (unset).
const minScaledDuration = time.Millisecond

// Scale returns a copy of sp with object counts, op and byte bounds,
// index selectors, COSBench's containers, durations and delays multiplied
// by f (sizes and concurrency are kept), so a workload meant for an hour
// runs in seconds in CI with the same shape. Counts round up and stay at
// least 1; index and container selectors shrink segment by segment, which
// keeps every range that contained another containing it (prepare still
// covers what main reads) and ranges apart apart (indexScale).
func (sp Spec) Scale(f float64) Spec {
	if !(f > 0) || f == 1 || math.IsInf(f, 0) {
		return sp
	}
	out := sp
	out.ScaledBy = f
	if sp.ScaledBy > 0 {
		out.ScaledBy *= sp.ScaledBy
	}
	out.Stages = slices.Clone(sp.Stages)
	idx := scales{index: sp.indexScales(f), containers: sp.containerScales(f)}
	for i := range out.Stages {
		st := &out.Stages[i]
		st.Delay = scaleDuration(st.Delay, f)
		st.Streams = slices.Clone(st.Streams)
		for j := range st.Streams {
			st.Streams[j] = st.Streams[j].scale(f, idx)
		}
	}
	return out
}

// scales are a spec's index scales by object naming and container scales
// by container naming.
type scales struct {
	index, containers map[string]*indexScale
}

func (s Stream) scale(f float64, idx scales) Stream {
	s.Bounds = s.Bounds.scale(f)
	if s.Bounds.PerWorker { // every worker keeps a whole part, at least one op or byte
		w := int64(max(s.MaxConcurrency(), 1))
		s.Bounds.Ops, s.Bounds.Bytes = roundUp(s.Bounds.Ops, w), roundUp(s.Bounds.Bytes, w)
	}
	if s.PerTarget != nil {
		per := make(map[string]Bounds, len(s.PerTarget))
		for k, b := range s.PerTarget {
			per[k] = b.scale(f)
		}
		s.PerTarget = per
	}
	if s.Rampup > 0 || s.Rampdown > 0 { // the ramps keep their share of the run, not below a tick
		s.Rampup, s.Rampdown = time.Duration(float64(s.Rampup)*f), time.Duration(float64(s.Rampdown)*f)
	}
	s.Objects = s.Objects.scale(f, idx)
	s.Mix = slices.Clone(s.Mix)
	for i := range s.Mix {
		if o := s.Mix[i].Objects; o != nil {
			ks := o.scale(f, idx)
			s.Mix[i].Objects = &ks
		}
	}
	if r := s.Rate; r != nil { // the ramp keeps its share of the run
		c := *r
		c.Ramp = scaleDuration(r.Ramp, f)
		s.Rate = &c
	}
	if w := s.Sweep; w != nil {
		c := *w
		c.Rates = mapSlice(w.Rates, func(r Rate) Rate { r.Ramp = scaleDuration(r.Ramp, f); return r })
		c.Durations = mapSlice(w.Durations, func(d time.Duration) time.Duration { return scaleDuration(d, f) })
		c.Ops = mapSlice(w.Ops, func(n int64) int64 { return scaleInt(n, f) })
		c.Bytes = mapSlice(w.Bytes, func(n int64) int64 { return scaleInt(n, f) })
		s.Sweep = &c
	}
	return s
}

func (k KeySpace) scale(f float64, idx scales) KeySpace {
	if k.Count > 0 {
		k.Count = int(scaleInt(int64(k.Count), f))
	}
	if k.Index != nil {
		sel := k.Index.Scale(f)
		if m := idx.index[k.naming()]; m != nil {
			sel = m.selector(*k.Index)
		}
		k.Index = &sel
	}
	if c := k.Containers; c != nil {
		if m := idx.containers[c.naming()]; m != nil {
			scaled := *c
			scaled.Numbers = m.selector(c.Numbers)
			k.Containers, k.Buckets = &scaled, scaled.buckets()
			if k.BucketPick != nil {
				pick := rankSelector(scaled.Numbers)
				k.BucketPick = &pick
			}
		}
	}
	return k
}

// roundUp is n rounded up to a multiple of m (0 stays 0).
func roundUp(n, m int64) int64 {
	if n <= 0 {
		return n
	}
	return (n + m - 1) / m * m
}

func scaleDuration(d time.Duration, f float64) time.Duration {
	if d <= 0 {
		return d
	}
	return max(time.Duration(float64(d)*f), minScaledDuration)
}

func mapSlice[T any](xs []T, fn func(T) T) []T {
	if xs == nil {
		return nil
	}
	out := make([]T, len(xs))
	for i, x := range xs {
		out[i] = fn(x)
	}
	return out
}

func (b Bounds) scale(f float64) Bounds {
	return Bounds{Duration: scaleDuration(b.Duration, f), Ops: scaleInt(b.Ops, f), Bytes: scaleInt(b.Bytes, f), PerWorker: b.PerWorker}
}

// CapRuntime returns a copy of sp whose main streams run at most d each,
// a trial run of a long workload: a longer duration is cut to d, its
// rampup and rampdown shrinking in proportion; a stream bounded only by
// ops or bytes also stops at d; delays wait at most d. Prepare and cleanup
// still do all their work (Scale shrinks it), so what later stages read
// is there and what the run wrote is deleted.
func (sp Spec) CapRuntime(d time.Duration) Spec {
	if d <= 0 {
		return sp
	}
	out := sp
	out.RuntimeCap = d
	if sp.RuntimeCap > 0 {
		out.RuntimeCap = min(d, sp.RuntimeCap)
	}
	out.Stages = slices.Clone(sp.Stages)
	for i := range out.Stages {
		st := &out.Stages[i]
		if st.Delay > d {
			st.Delay = d
		}
		if st.Kind != KindMain {
			continue
		}
		st.Streams = slices.Clone(st.Streams)
		for j := range st.Streams {
			st.Streams[j] = st.Streams[j].capRuntime(d)
		}
	}
	return out
}

func (s Stream) capRuntime(d time.Duration) Stream {
	capped := func(b Bounds) Bounds {
		if b.Duration == 0 || b.Duration > d {
			b.Duration = d
		}
		return b
	}
	if full := s.Bounds.Duration; full > d && (s.Rampup > 0 || s.Rampdown > 0) {
		f := float64(d) / float64(full) // to the millisecond, as COSBench's clock
		s.Rampup, s.Rampdown = time.Duration(float64(s.Rampup)*f).Round(time.Millisecond), time.Duration(float64(s.Rampdown)*f).Round(time.Millisecond)
	}
	s.Bounds = capped(s.Bounds)
	if s.PerTarget != nil {
		per := make(map[string]Bounds, len(s.PerTarget))
		for k, b := range s.PerTarget {
			per[k] = capped(b)
		}
		s.PerTarget = per
	}
	if w := s.Sweep; w != nil && len(w.Durations) > 0 {
		c := *w
		c.Durations = mapSlice(w.Durations, func(v time.Duration) time.Duration { return min(v, d) })
		s.Sweep = &c
	}
	return s
}

// Incompressible returns a copy of sp whose streams write random bytes
// instead of a pattern (COSBench's letters): objbench run --incompressible.
func (sp Spec) Incompressible() Spec {
	out := sp
	out.Stages = slices.Clone(sp.Stages)
	for i := range out.Stages {
		st := &out.Stages[i]
		st.Streams = slices.Clone(st.Streams)
		for j := range st.Streams {
			st.Streams[j].Data.Pattern = ""
		}
	}
	return out
}
