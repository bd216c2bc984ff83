package workload

import (
	"math/rand/v2"
	"strings"

	"github.com/objbench/objbench/units"
)

// ParseWholeSizeSelector reads a size selector as COSBench does: a unit
// after it makes every size a whole number of that unit, so u(1,4)KB is
// 1000, 2000, 3000 or 4000 bytes (COSBench's DefaultSizeGenerator draws the
// number, then multiplies), where ParseSizeSelector draws any byte count
// from 1000 to 4000.
func ParseWholeSizeSelector(s string) (Selector, error) {
	sel, err := ParseSizeSelector(s)
	if err != nil || sel.Kind == SelConst {
		return sel, err
	}
	t := strings.TrimSpace(s)
	if end := strings.LastIndexByte(t, ')'); end >= 0 {
		if unit := strings.TrimSpace(t[end+1:]); unit != "" {
			if m, err := units.ParseSize("1" + unit); err == nil && m > 1 {
				sel.Unit = m
			}
		}
	}
	return sel, nil
}

// inUnits is s counted in its units.
func (s Selector) inUnits() Selector {
	u := s.Unit
	out := s
	out.Unit, out.Min, out.Max = 0, s.Min/u, s.Max/u
	if s.Bins != nil {
		out.Bins = make([]Bin, len(s.Bins))
		for i, b := range s.Bins {
			out.Bins[i] = Bin{Lo: b.Lo / u, Hi: b.Hi / u, Weight: b.Weight}
		}
	}
	return out
}

func (s Selector) unitSampler(rng *rand.Rand, next func() uint64) func() int64 {
	draw, u := s.inUnits().Sampler(rng, next), s.Unit
	return func() int64 { return draw() * u }
}

// unitNames name the units a whole-unit selector's text form uses.
var unitNames = map[int64]string{1000: "KB", 1000_000: "MB", 1000_000_000: "GB", 1000_000_000_000: "TB",
	1 << 10: "KiB", 1 << 20: "MiB", 1 << 30: "GiB", 1 << 40: "TiB"}

// unitString is s's text form in whole units ("u(1,4)KB"); ok is false for
// a unit without a name, written in bytes instead.
func (s Selector) unitString() (string, bool) {
	name, ok := unitNames[s.Unit]
	if !ok {
		return "", false
	}
	return s.inUnits().String() + name, true
}
