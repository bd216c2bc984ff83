package workload

import (
	"math"
	"slices"
	"strconv"
)

// indexScale scales the object numbers of one naming (prefix and suffix)
// so that ranges that were apart stay apart and ranges that met or held
// one another still do: the boundaries of every range the spec uses cut
// the numbers into segments, each segment shrinks by the factor (keeping
// at least one number) and the segments are laid end to end again. Where
// n -> ceil(n*f) alone made u(1,50) and u(51,100) both u(1,1) at 0.01,
// they become u(1,1) and u(2,2).
type indexScale struct {
	points []int64 // segment starts, sorted, the last one past every range
	starts []int64 // where each segment starts once scaled
}

func newIndexScale(points []int64, f float64) *indexScale {
	slices.Sort(points)
	points = slices.Compact(points)
	m := &indexScale{points: points, starts: make([]int64, len(points))}
	for i, p := range points {
		if i == 0 {
			m.starts[0] = scaleInt(p, f)
			continue
		}
		width := max(int64(math.Ceil(float64(p-points[i-1])*f)), 1)
		m.starts[i] = m.starts[i-1] + width
	}
	return m
}

// lo maps the first number of a range; hi its last.
func (m *indexScale) lo(v int64) int64 {
	if i, ok := slices.BinarySearch(m.points, v); ok {
		return m.starts[i]
	}
	return v // not a boundary: cannot happen for the selectors m was made from
}

func (m *indexScale) hi(v int64) int64 {
	if i, ok := slices.BinarySearch(m.points, v+1); ok && v+1 <= math.MaxInt64/2 {
		return m.starts[i] - 1
	}
	return v
}

func (m *indexScale) selector(s Selector) Selector {
	out := s
	out.Min, out.Max = m.lo(s.Min), m.hi(s.Max)
	if s.Bins != nil {
		out.Bins = make([]Bin, len(s.Bins))
		for i, b := range s.Bins {
			out.Bins[i] = Bin{Lo: m.lo(b.Lo), Hi: m.hi(b.Hi), Weight: b.Weight}
		}
	}
	return out
}

// indexPoints adds the boundaries of sel's ranges to pts.
func indexPoints(pts []int64, sel Selector) []int64 {
	pts = append(pts, sel.Min, sel.Max+1)
	for _, b := range sel.Bins {
		pts = append(pts, b.Lo, b.Hi+1)
	}
	return pts
}

// indexScales is the scale of every naming of sp's numbered objects.
func (sp Spec) indexScales(f float64) map[string]*indexScale {
	return sp.selectorScales(f, func(k KeySpace) (string, *Selector) {
		if k.Index == nil {
			return "", nil
		}
		return k.naming(), k.Index
	})
}

// containerScales is the scale of every naming of COSBench's containers.
func (sp Spec) containerScales(f float64) map[string]*indexScale {
	return sp.selectorScales(f, func(k KeySpace) (string, *Selector) {
		if k.Containers == nil {
			return "", nil
		}
		return k.Containers.naming(), &k.Containers.Numbers
	})
}

// selectorScales scales, per naming, the selectors that pick finds in
// every key space of sp (a stream's and its mix's).
func (sp Spec) selectorScales(f float64, pick func(KeySpace) (string, *Selector)) map[string]*indexScale {
	pts := map[string][]int64{}
	add := func(k KeySpace) {
		if name, sel := pick(k); sel != nil {
			pts[name] = indexPoints(pts[name], *sel)
		}
	}
	for _, st := range sp.Stages {
		for _, s := range st.Streams {
			add(s.Objects)
			for _, m := range s.Mix {
				if m.Objects != nil {
					add(*m.Objects)
				}
			}
		}
	}
	out := map[string]*indexScale{}
	for k, p := range pts {
		out[k] = newIndexScale(p, f)
	}
	return out
}

func (c Containers) naming() string { return c.Prefix + "\x00" + c.Suffix }

// buckets are the bucket names of the containers, in order.
func (c Containers) buckets() []string {
	out := make([]string, 0, c.Numbers.Count())
	for i := range c.Numbers.Count() {
		out = append(out, s3BucketName(c.Prefix+strconv.FormatInt(c.Numbers.At(i), 10)+c.Suffix))
	}
	return out
}

// naming identifies how a key space names its numbered objects: the same
// number is the same key in every bucket it lists.
func (k KeySpace) naming() string { return k.Prefix + "\x00" + k.Suffix }
