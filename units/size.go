package units

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Units says which unit means what, for help texts and errors.
const Units = "KiB, MiB, GiB, TiB are powers of 1024 (4KiB = 4096 B); KB, MB, GB, TB powers of 1000 (4KB = 4000 B)"

// ParseSize reads a byte size such as "4KiB", "1.5 GB" or "100", any
// case: KB/MB/GB/TB are powers of 1000 and KiB/MiB/GiB/TiB of 1024. A bare
// K, M, G or T is refused: tools disagree on whether it means 1000 or
// 1024, and a size that is silently the other one is a wrong benchmark.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], strings.TrimSpace(t[i:])
	}
	if bare := strings.ToUpper(unit); len(bare) == 1 && strings.Contains("KMGT", bare) {
		return 0, fmt.Errorf("bad size %q: %w", s, &AmbiguousUnitError{Num: num, Unit: unit})
	}
	mult, ok := multiplier(unit)
	if !ok {
		return 0, fmt.Errorf("bad size %q: unknown unit %q (use B, KB, KiB, MB, MiB, GB, GiB, TB or TiB: %s)", s, unit, Units)
	}
	// Exact decimal arithmetic: 9007199254740993 bytes is that many, not
	// the nearest float64.
	if len(num) > 40 { // more digits than any size has: refused before big.Rat works on them
		return 0, fmt.Errorf("bad size %q: a number of %d digits", s, len(num))
	}
	v, ok := new(big.Rat).SetString(num)
	if !ok || num == "" || strings.ContainsAny(num, "eE/+-") {
		return 0, fmt.Errorf("bad size %q: want a number and a unit, like 4KiB or 10GB", s)
	}
	b := v.Mul(v, new(big.Rat).SetInt64(mult))
	if !b.IsInt() || b.Num().Cmp(big.NewInt(math.MaxInt64/2)) > 0 {
		return 0, fmt.Errorf("bad size %q: not a whole number of bytes below 4 EiB", s)
	}
	return b.Num().Int64(), nil
}

// AmbiguousUnitError is a size with a bare K, M, G or T, which some tools
// read as powers of 1000 and others of 1024. Num is the number before it
// ("" in a selector's unit).
type AmbiguousUnitError struct{ Num, Unit string }

func (e *AmbiguousUnitError) Error() string {
	u := strings.ToUpper(e.Unit)
	return fmt.Sprintf("%s alone could mean powers of 1000 or of 1024: write %s%siB or %s%sB (%s)", e.Unit, e.Num, u, e.Num, u, Units)
}

// FormatSize writes a byte count exactly, in the unit that takes the
// fewest digits: 64000 reads "64 KB", 65536 "64 KiB", 1000 "1 KB".
func FormatSize(n int64) string {
	best := strconv.FormatInt(n, 10) + " B"
	digits := len(best) - 2
	// Decimal units first, so that a tie (1024000 is both 1000 KiB and
	// 1024 KB) goes to the unit COSBench files use.
	formats := [...]struct {
		name string
		mult int64
	}{{"TB", 1e12}, {"TiB", 1 << 40}, {"GB", 1e9}, {"GiB", 1 << 30}, {"MB", 1e6}, {"MiB", 1 << 20}, {"KB", 1e3}, {"KiB", 1 << 10}}
	for _, f := range formats {
		if n != 0 && n%f.mult == 0 {
			if v := strconv.FormatInt(n/f.mult, 10); len(v) < digits {
				best, digits = v+" "+f.name, len(v)
			}
		}
	}
	return best
}

// multiplier returns the bytes in one unit, case-insensitively: KB, MB, GB,
// TB are powers of 1000; KiB, MiB, GiB, TiB of 1024.
func multiplier(unit string) (int64, bool) {
	switch strings.ToLower(unit) {
	case "", "b":
		return 1, true
	case "kb":
		return 1e3, true
	case "mb":
		return 1e6, true
	case "gb":
		return 1e9, true
	case "tb":
		return 1e12, true
	case "kib":
		return 1 << 10, true
	case "mib":
		return 1 << 20, true
	case "gib":
		return 1 << 30, true
	case "tib":
		return 1 << 40, true
	}
	return 0, false
}
