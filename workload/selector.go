package workload

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/objbench/objbench/units"
)

// SelectorKind names a selector's distribution.
type SelectorKind string

// The selector kinds: COSBench's five plus zipf and log2.
const (
	SelConst      SelectorKind = "c"    // c(N): always N
	SelUniform    SelectorKind = "u"    // u(a,b): uniform in [a,b]
	SelRange      SelectorKind = "r"    // r(a,b): a, a+1, ... b, then again
	SelSequential SelectorKind = "s"    // s(a,b): like r (COSBench keeps both names)
	SelHistogram  SelectorKind = "h"    // h(a|b|w,...): a bin by weight, then uniform in it
	SelZipf       SelectorKind = "zipf" // zipf(a,b[,e]): a hottest, exponent e > 1
	SelLog2       SelectorKind = "log2" // log2(a,b): 2^u(log2 a, log2 b)
)

// DefaultZipfExponent is used when zipf(a,b) gives none: a few keys take
// most of the reads, as in the "hot keys" of caches and mailboxes.
const DefaultZipfExponent = 1.1

// maxBins bounds a histogram so a hostile file cannot make one huge.
const maxBins = 1000

// maxValue bounds every value a selector gives, as sizes are bounded (4
// EiB): counts and sums of values stay clear of int64's overflow.
const maxValue = math.MaxInt64 / 2

// Selector picks numbers: object indices, bucket numbers or sizes in bytes.
// It is a value: sampling state (rngs, sequential cursors) lives with the
// caller, see Sampler.
type Selector struct {
	Kind SelectorKind
	Min  int64 // smallest value it can give
	Max  int64 // largest value it can give
	Bins []Bin // histogram bins, sorted by Lo
	Exp  float64
	// Unit, above 1, makes every value a whole number of it (COSBench's
	// sizes, ParseWholeSizeSelector): Min, Max and the bins are multiples
	// of it, and values are drawn in units.
	Unit int64
}

// Bin is one histogram bin: values Lo..Hi chosen with relative Weight.
type Bin struct {
	Lo, Hi, Weight int64
}

// ParseSelector reads an index selector: c(N), u(a,b), r(a,b), s(a,b),
// h(a|b|w,...), zipf(a,b[,e]), log2(a,b), a bare number N (= c(N)) or
// COSBench's older "a-b" (= r(a,b)).
func ParseSelector(s string) (Selector, error) {
	return parseSelector(s, false)
}

// ParseSizeSelector reads a size selector: the same grammar with sizes,
// either inside ("u(4KiB,1MiB)") or as one unit after it, COSBench style
// ("c(64)KB", "h(1|64|10,64|512|90)KB"); a bare size ("4KiB") is c(size).
// KB, MB, GB are powers of 1000 (as in COSBench); KiB, MiB, GiB of 1024.
func ParseSizeSelector(s string) (Selector, error) {
	return parseSelector(s, true)
}

func parseSelector(in string, sizes bool) (Selector, error) {
	t := strings.TrimSpace(in)
	open := strings.IndexByte(t, '(')
	if open < 0 {
		return parseBare(in, t, sizes)
	}
	end := strings.LastIndexByte(t, ')')
	if end < open {
		return Selector{}, fmt.Errorf("bad selector %q: no closing ')'", in)
	}
	kind := SelectorKind(strings.ToLower(strings.TrimSpace(t[:open])))
	unit := strings.TrimSpace(t[end+1:])
	mult := int64(1)
	if unit != "" {
		if !sizes {
			return Selector{}, fmt.Errorf("bad selector %q: %q after ')'", in, unit)
		}
		m, err := units.ParseSize("1" + unit)
		if amb := (*units.AmbiguousUnitError)(nil); errors.As(err, &amb) {
			return Selector{}, fmt.Errorf("bad selector %q: %w", in, &units.AmbiguousUnitError{Unit: amb.Unit})
		}
		if err != nil || m < 1 {
			return Selector{}, fmt.Errorf("bad selector %q: unknown unit %q (use B, KB, KiB, MB, MiB, GB, GiB)", in, unit)
		}
		mult = m
	}
	num := func(a string) (int64, error) { return parseNum(a, sizes, mult) }
	sel, err := parseArgs(kind, t[open+1:end], num)
	if err != nil {
		return Selector{}, fmt.Errorf("bad selector %q: %w", in, err)
	}
	if err := sel.check(); err != nil {
		return Selector{}, fmt.Errorf("bad selector %q: %w", in, err)
	}
	return sel, nil
}

// parseBare reads "N", "a-b" (index) or "4KiB" (size).
func parseBare(in, t string, sizes bool) (Selector, error) {
	if sizes {
		n, err := units.ParseSize(t)
		if amb := (*units.AmbiguousUnitError)(nil); errors.As(err, &amb) {
			return Selector{}, fmt.Errorf("bad size %q: %w", in, amb)
		}
		if err != nil {
			return Selector{}, fmt.Errorf("bad size %q: want a size (4KiB) or a selector like u(1,10)MB", in)
		}
		return Const(n), nil
	}
	if a, b, ok := strings.Cut(t, "-"); ok && a != "" {
		lo, err1 := strconv.ParseInt(strings.TrimSpace(a), 10, 64)
		hi, err2 := strconv.ParseInt(strings.TrimSpace(b), 10, 64)
		if err1 == nil && err2 == nil {
			sel := Selector{Kind: SelRange, Min: lo, Max: hi}
			if err := sel.check(); err != nil {
				return Selector{}, fmt.Errorf("bad selector %q: %w", in, err)
			}
			return sel, nil
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 {
		return Selector{}, fmt.Errorf("bad selector %q: want c(N), u(a,b), r(a,b), s(a,b), h(a|b|w,...), zipf(a,b) or log2(a,b)", in)
	}
	if err := Const(n).check(); err != nil {
		return Selector{}, fmt.Errorf("bad selector %q: %w", in, err)
	}
	return Const(n), nil
}

func parseNum(a string, sizes bool, mult int64) (int64, error) {
	a = strings.TrimSpace(a)
	if sizes && mult == 1 {
		return units.ParseSize(a)
	}
	n, err := strconv.ParseInt(a, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a whole number", a)
	}
	if n > 0 && mult > maxValue/n {
		return 0, fmt.Errorf("%q is too large", a)
	}
	return n * mult, nil
}

func parseArgs(kind SelectorKind, body string, num func(string) (int64, error)) (Selector, error) {
	args := strings.Split(body, ",")
	switch kind {
	case SelConst:
		if len(args) != 1 {
			return Selector{}, errors.New("c() takes one value")
		}
		n, err := num(args[0])
		return Const(n), err
	case SelUniform, SelRange, SelSequential, SelLog2:
		if len(args) != 2 {
			return Selector{}, fmt.Errorf("%s() takes two values, min and max", kind)
		}
		return parsePair(kind, args, num)
	case SelZipf:
		return parseZipf(args, num)
	case SelHistogram:
		return parseHistogram(args, num)
	}
	return Selector{}, fmt.Errorf("unknown kind %q (want c, u, r, s, h, zipf or log2)", kind)
}

func parsePair(kind SelectorKind, args []string, num func(string) (int64, error)) (Selector, error) {
	lo, err := num(args[0])
	if err != nil {
		return Selector{}, err
	}
	hi, err := num(args[1])
	return Selector{Kind: kind, Min: lo, Max: hi}, err
}

func parseZipf(args []string, num func(string) (int64, error)) (Selector, error) {
	if len(args) != 2 && len(args) != 3 {
		return Selector{}, errors.New("zipf() takes min, max and an optional exponent")
	}
	sel, err := parsePair(SelZipf, args[:2], num)
	if err != nil {
		return Selector{}, err
	}
	sel.Exp = DefaultZipfExponent
	if len(args) == 3 {
		if sel.Exp, err = strconv.ParseFloat(strings.TrimSpace(args[2]), 64); err != nil {
			return Selector{}, fmt.Errorf("exponent %q is not a number", args[2])
		}
	}
	return sel, nil
}

func parseHistogram(args []string, num func(string) (int64, error)) (Selector, error) {
	if len(args) > maxBins {
		return Selector{}, fmt.Errorf("more than %d bins", maxBins)
	}
	sel := Selector{Kind: SelHistogram}
	for _, a := range args {
		f := strings.Split(a, "|")
		if len(f) != 3 {
			return Selector{}, fmt.Errorf("bin %q: want min|max|weight", strings.TrimSpace(a))
		}
		lo, err := num(f[0])
		if err != nil {
			return Selector{}, err
		}
		hi, err := num(f[1])
		if err != nil {
			return Selector{}, err
		}
		w, err := strconv.ParseInt(strings.TrimSpace(f[2]), 10, 64)
		if err != nil {
			return Selector{}, fmt.Errorf("bin %q: weight %q is not a whole number", strings.TrimSpace(a), f[2])
		}
		sel.Bins = append(sel.Bins, Bin{Lo: lo, Hi: hi, Weight: w})
	}
	sel.sortBins()
	return sel, nil
}

// Const is the selector c(n).
func Const(n int64) Selector { return Selector{Kind: SelConst, Min: n, Max: n} }

// check reports what makes the selector unusable.
func (s Selector) check() error {
	if s.Kind == SelHistogram {
		return s.checkBins()
	}
	switch {
	case s.Min < 0:
		return fmt.Errorf("%d is negative", s.Min)
	case s.Min > s.Max:
		return fmt.Errorf("min %d is above max %d", s.Min, s.Max)
	case s.Max > maxValue:
		return fmt.Errorf("%d is too large (at most %d)", s.Max, int64(maxValue))
	case s.Kind == SelZipf && (!(s.Exp > 1) || math.IsInf(s.Exp, 0)):
		return fmt.Errorf("zipf exponent %v must be above 1", s.Exp)
	case s.Kind == SelLog2 && s.Min < 1:
		return errors.New("log2() needs a min of at least 1")
	}
	return nil
}

func (s Selector) checkBins() error {
	if len(s.Bins) == 0 {
		return errors.New("h() needs at least one bin")
	}
	for _, b := range s.Bins {
		switch {
		case b.Lo < 0:
			return fmt.Errorf("bin %d|%d: %d is negative", b.Lo, b.Hi, b.Lo)
		case b.Lo > b.Hi:
			return fmt.Errorf("bin %d|%d: min is above max", b.Lo, b.Hi)
		case b.Hi > maxValue:
			return fmt.Errorf("bin %d|%d: %d is too large (at most %d)", b.Lo, b.Hi, b.Hi, int64(maxValue))
		case b.Weight <= 0 || b.Weight > 1<<40:
			return fmt.Errorf("bin %d|%d: weight %d must be positive", b.Lo, b.Hi, b.Weight)
		}
	}
	return nil
}

// sortBins orders bins by Lo and sets Min and Max.
func (s *Selector) sortBins() {
	bins := s.Bins
	for i := 1; i < len(bins); i++ { // insertion sort: bins are few and often sorted
		for j := i; j > 0 && bins[j].Lo < bins[j-1].Lo; j-- {
			bins[j], bins[j-1] = bins[j-1], bins[j]
		}
	}
	if len(bins) == 0 {
		return
	}
	s.Min, s.Max = bins[0].Lo, bins[0].Hi
	for _, b := range bins {
		s.Min, s.Max = min(s.Min, b.Lo), max(s.Max, b.Hi)
	}
}

// String is the selector in its canonical grammar (numbers in bytes for
// sizes); ParseSelector reads it back.
func (s Selector) String() string {
	if s.Unit > 1 {
		if text, ok := s.unitString(); ok {
			return text
		}
	}
	return s.format(func(n int64) string { return strconv.FormatInt(n, 10) })
}

func (s Selector) format(num func(int64) string) string {
	switch s.Kind {
	case SelConst:
		return "c(" + num(s.Min) + ")"
	case SelZipf:
		return "zipf(" + num(s.Min) + "," + num(s.Max) + "," + strconv.FormatFloat(s.Exp, 'g', -1, 64) + ")"
	case SelHistogram:
		parts := make([]string, len(s.Bins))
		for i, b := range s.Bins {
			parts[i] = num(b.Lo) + "|" + num(b.Hi) + "|" + strconv.FormatInt(b.Weight, 10)
		}
		return "h(" + strings.Join(parts, ",") + ")"
	}
	return string(s.Kind) + "(" + num(s.Min) + "," + num(s.Max) + ")"
}

// MarshalText writes the canonical form, so result files read "u(1,100)".
func (s Selector) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads the canonical form.
func (s *Selector) UnmarshalText(b []byte) error {
	parse := ParseSelector
	if t := strings.TrimSpace(string(b)); strings.HasSuffix(t, "B") { // whole units: "u(1,4)KB"
		parse = ParseWholeSizeSelector
	}
	v, err := parse(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}
