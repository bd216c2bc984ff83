package workload_test

import (
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/objbench/objbench/workload"
)

func TestParseSelector(t *testing.T) {
	for _, c := range []struct {
		in, canonical string
		min, max      int64
		count         int64
	}{
		{"c(7)", "c(7)", 7, 7, 1},
		{"42", "c(42)", 42, 42, 1},
		{" u( 1 , 10 ) ", "u(1,10)", 1, 10, 10},
		{"r(0,99)", "r(0,99)", 0, 99, 100},
		{"s(51,100)", "s(51,100)", 51, 100, 50},
		{"1-100", "r(1,100)", 1, 100, 100}, // COSBench's older range form
		{"h(1|10|70,20|29|30)", "h(1|10|70,20|29|30)", 1, 29, 20},
		{"h(20|29|30,1|10|70)", "h(1|10|70,20|29|30)", 1, 29, 20}, // bins sort
		{"h(1|10|1,5|15|1)", "h(1|10|1,5|15|1)", 1, 15, 15},       // overlapping bins merge
		{"zipf(1,1000)", "zipf(1,1000,1.1)", 1, 1000, 1000},
		{"ZIPF(0,9,2.5)", "zipf(0,9,2.5)", 0, 9, 10},
		{"log2(1,1024)", "log2(1,1024)", 1, 1024, 1024},
	} {
		t.Run(c.in, func(t *testing.T) {
			s, err := workload.ParseSelector(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if s.String() != c.canonical || s.Min != c.min || s.Max != c.max || s.Count() != c.count {
				t.Errorf("got %s [%d,%d] count %d; want %s [%d,%d] count %d", s, s.Min, s.Max, s.Count(), c.canonical, c.min, c.max, c.count)
			}
			again, err := workload.ParseSelector(s.String())
			if err != nil || again.String() != s.String() {
				t.Errorf("canonical form %q does not read back: %v, %v", s, again, err)
			}
		})
	}
}

func TestParseSelectorErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "bad selector"},
		{"u(5,1)", "min 5 is above max 1"},
		{"u(1)", "takes two values"},
		{"c(1,2)", "takes one value"},
		{"r(-1,5)", "negative"},
		{"x(1,2)", `unknown kind "x"`},
		{"u(1,10", "no closing ')'"},
		{"u(a,b)", "not a whole number"},
		{"h()", "bin"},
		{"h(1|2)", "want min|max|weight"},
		{"h(1|2|0)", "weight 0 must be positive"},
		{"h(5|2|1)", "min is above max"},
		{"zipf(1,10,1)", "exponent 1 must be above 1"},
		{"zipf(1,10,x)", "not a number"},
		{"log2(0,10)", "min of at least 1"},
		{"u(1,10)KB", `"KB" after ')'`}, // units belong to sizes
	} {
		if _, err := workload.ParseSelector(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseSelector(%q) = %v; want an error with %q", c.in, err, c.want)
		}
	}
}

func TestParseSizeSelector(t *testing.T) {
	for _, c := range []struct {
		in       string
		min, max int64
		display  string
	}{
		{"4KiB", 4096, 4096, "4 KiB"},
		{"64KB", 64000, 64000, "64 KB"},
		{"c(64)KB", 64000, 64000, "64 KB"},
		{"u(1,10)MB", 1e6, 10e6, "u(1 MB,10 MB)"},
		{"u(4KiB,1MiB)", 4096, 1 << 20, "u(4 KiB,1 MiB)"},
		{"h(1|64|10,64|512|90)KB", 1000, 512000, "h(1 KB|64 KB|10,64 KB|512 KB|90)"},
		{"log2(1KiB, 1GiB)", 1024, 1 << 30, "log2(1 KiB,1 GiB)"},
		{"r(1,3)B", 1, 3, "r(1 B,3 B)"},
		{"0", 0, 0, "0 B"},
	} {
		s, err := workload.ParseSizeSelector(c.in)
		if err != nil {
			t.Errorf("ParseSizeSelector(%q): %v", c.in, err)
			continue
		}
		if s.Min != c.min || s.Max != c.max || s.SizeString() != c.display {
			t.Errorf("ParseSizeSelector(%q) = [%d,%d] %q; want [%d,%d] %q", c.in, s.Min, s.Max, s.SizeString(), c.min, c.max, c.display)
		}
	}
	for _, bad := range []string{"4XB", "u(1,10)XB", "-1", "c(-5)KB", "u(9223372036854775807,9223372036854775807)KB", "u(1KiB)"} {
		if _, err := workload.ParseSizeSelector(bad); err == nil {
			t.Errorf("ParseSizeSelector(%q) accepted a bad size", bad)
		}
	} // A bare k, m, g or t is 1000 to some tools and 1024 to others.
	for in, want := range map[string]string{"64k": "write 64KiB or 64KB", "u(1,4)M": "write MiB or MB"} {
		if _, err := workload.ParseSizeSelector(in); err == nil || !strings.Contains(err.Error(), "alone could mean powers of 1000 or of 1024: "+want) {
			t.Errorf("ParseSizeSelector(%q): %v; want it refused: %s", in, err, want)
		}
	}
}

func mustSel(t *testing.T, s string) workload.Selector {
	t.Helper()
	v, err := workload.ParseSelector(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestSamplersStayInRangeAndFollowTheirShape(t *testing.T) {
	const n = 20000
	for _, c := range []struct {
		sel   string
		check func(t *testing.T, counts map[int64]int)
	}{
		{"c(5)", func(t *testing.T, m map[int64]int) { want(t, m[5] == n, "c(5) gave %v", m) }},
		{"u(1,4)", func(t *testing.T, m map[int64]int) {
			for v := int64(1); v <= 4; v++ {
				want(t, m[v] > n/4-n/20 && m[v] < n/4+n/20, "u(1,4): %d drawn %d times", v, m[v])
			}
		}},
		{"s(3,5)", func(t *testing.T, m map[int64]int) {
			want(t, m[3]+m[4]+m[5] == n && m[3]-m[5] <= 1 && m[3] >= m[4] && m[4] >= m[5], "s(3,5) not in turn: %v", m)
		}},
		{"h(1|1|90,2|3|10)", func(t *testing.T, m map[int64]int) {
			want(t, m[1] > n*85/100 && m[1] < n*95/100 && m[2]+m[3] == n-m[1], "h 90/10: %v", m)
		}},
		{"zipf(1,100,1.5)", func(t *testing.T, m map[int64]int) {
			want(t, m[1] > m[2] && m[2] > m[10] && m[1] > n/3, "zipf not hot at 1: 1=%d 2=%d 10=%d", m[1], m[2], m[10])
		}},
		{"log2(1,1024)", func(t *testing.T, m map[int64]int) {
			small, large := 0, 0
			for v, k := range m {
				if v <= 32 {
					small += k
				} else {
					large += k
				}
			}
			want(t, small > n*4/10 && large > n*4/10, "log2 halves (<=32, >32): %d %d", small, large)
		}},
	} {
		t.Run(c.sel, func(t *testing.T) {
			s := mustSel(t, c.sel)
			var cursor atomic.Uint64
			draw := s.Sampler(rand.New(rand.NewPCG(1, 2)), func() uint64 { return cursor.Add(1) - 1 })
			counts := map[int64]int{}
			for range n {
				v := draw()
				if v < s.Min || v > s.Max {
					t.Fatalf("%s drew %d outside [%d,%d]", c.sel, v, s.Min, s.Max)
				}
				counts[v]++
			}
			c.check(t, counts)
		})
	}
}

func want(t *testing.T, ok bool, format string, a ...any) {
	t.Helper()
	if !ok {
		t.Errorf(format, a...)
	}
}

func TestSelectorRangesContainAndScale(t *testing.T) {
	h := mustSel(t, "h(1|10|1,21|30|1)")
	for i, v := range map[int64]int64{0: 1, 9: 10, 10: 21, 19: 30} {
		if got := h.At(i); got != v {
			t.Errorf("At(%d) = %d, want %d", i, got, v)
		}
	}
	for _, c := range []struct {
		outer, inner string
		contains     bool
	}{
		{"r(1,100)", "u(1,10)", true},
		{"r(1,10)", "u(11,20)", false},
		{"h(1|10|1,21|30|1)", "u(5,8)", true},
		{"h(1|10|1,21|30|1)", "u(5,25)", false},
		{"r(1,20)", "c(20)", true},
	} {
		o, in := mustSel(t, c.outer), mustSel(t, c.inner)
		if o.Contains(in) != c.contains {
			t.Errorf("%s contains %s = %v", o, in, !c.contains)
		}
		// Scaling keeps containment, down to one object.
		for _, f := range []float64{0.5, 0.1, 0.01, 0.0001} {
			if c.contains && !o.Scale(f).Contains(in.Scale(f)) {
				t.Errorf("scaled by %v, %s no longer contains %s", f, o.Scale(f), in.Scale(f))
			}
		}
	}
	if s := mustSel(t, "r(1,10000)").Scale(0.01); s.String() != "r(1,100)" {
		t.Errorf("r(1,10000) scaled by 0.01 = %s", s)
	}
	if m := mustSel(t, "h(0|0|1,10|10|3)").Mean(); m != 7.5 {
		t.Errorf("histogram mean %v, want 7.5", m)
	}
}

func TestZipfMeanMatchesSamplingAndStaysCheap(t *testing.T) {
	for _, sel := range []string{"zipf(1,100,1.5)", "zipf(1,1000000,1.1)", "zipf(0,50000,2)"} {
		s := mustSel(t, sel)
		draw := s.Sampler(rand.New(rand.NewPCG(3, 4)), nil)
		var sum float64
		const n = 200000
		for range n {
			sum += float64(draw())
		}
		got, mean := sum/n, s.Mean()
		if d := (got - mean) / mean; d < -0.1 || d > 0.1 {
			t.Errorf("%s: mean %v, but draws average %v", sel, mean, got)
		}
	}
}
