package report

import (
	"math"
	"sort"
)

// MannWhitney is the two-sided Mann-Whitney U test of whether samples a and
// b come from the same distribution. It returns U for a and the p-value
// from the normal approximation with tie and continuity correction (what
// scipy.stats.mannwhitneyu calls method="asymptotic"): good enough from
// about five samples a side, which is all a per-second series needs.
// With an empty side or every value tied there is no evidence: p is 1.
func MannWhitney(a, b []float64) (u, p float64) {
	n1, n2 := float64(len(a)), float64(len(b))
	if n1 == 0 || n2 == 0 {
		return 0, 1
	}
	type obs struct {
		v     float64
		fromA bool
	}
	all := make([]obs, 0, len(a)+len(b))
	for _, v := range a {
		all = append(all, obs{v, true})
	}
	for _, v := range b {
		all = append(all, obs{v, false})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v < all[j].v })
	var rankA, ties float64
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		rank := float64(i+j+1) / 2 // mean of ranks i+1 .. j
		for k := i; k < j; k++ {
			if all[k].fromA {
				rankA += rank
			}
		}
		t := float64(j - i)
		ties += t*t*t - t
		i = j
	}
	n := n1 + n2
	u = rankA - n1*(n1+1)/2
	mu := n1 * n2 / 2
	variance := n1 * n2 / 12 * ((n + 1) - ties/(n*(n-1)))
	if variance <= 0 {
		return u, 1
	}
	z := (math.Abs(u-mu) - 0.5) / math.Sqrt(variance)
	if z <= 0 {
		return u, 1
	}
	return u, math.Erfc(z / math.Sqrt2)
}
