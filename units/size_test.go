package units_test

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/objbench/objbench/units"
)

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{{"0", 0}, {"100", 100}, {"4KiB", 4096}, {"4kb", 4000}, {"1.5 MiB", 1572864}, {"64mib", 64 << 20}, {"64 mb", 64e6}, {"2GiB", 2 << 30}, {"10GB", 10e9}, {"7B", 7}} {
		got, err := units.ParseSize(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"4XB", "", "KiB", "1.5B", "-1", "1e3"} {
		if _, err := units.ParseSize(bad); err == nil || !strings.Contains(err.Error(), "bad size") {
			t.Errorf("ParseSize(%q) err = %v; want a 'bad size' error", bad, err)
		}
	}
	// A bare K, M, G or T is read as 1000 by some tools and 1024 by others:
	// refused, with both spellings that say which.
	for in, want := range map[string]string{"4K": "write 4KiB or 4KB", "64m": "write 64MiB or 64MB", "1.5 g": "write 1.5GiB or 1.5GB",
		"2T": "write 2TiB or 2TB"} {
		if _, err := units.ParseSize(in); err == nil || !strings.Contains(err.Error(), "alone could mean powers of 1000 or of 1024: "+want) {
			t.Errorf("ParseSize(%q) err = %v; want it refused: %q", in, err, want)
		}
	}
}

func TestFormatSize(t *testing.T) {
	for _, c := range []struct {
		in   int64
		want string
	}{
		{0, "0 B"}, {7, "7 B"}, {1000, "1 KB"}, {1024, "1 KiB"}, {64000, "64 KB"}, {65536, "64 KiB"},
		{1024000, "1024 KB"}, // a tie with 1000 KiB goes to the decimal unit
		{1536, "1536 B"}, {5 << 20, "5 MiB"}, {10e9, "10 GB"}, {2 << 30, "2 GiB"}, {3 << 40, "3 TiB"}, {4e12, "4 TB"},
	} {
		if got := units.FormatSize(c.in); got != c.want {
			t.Errorf("FormatSize(%d) = %q; want %q", c.in, got, c.want)
		}
	}
}

// A size parses to whole bytes or is refused; a size prints (FormatSize)
// to a text that reads back as exactly that many bytes.
func FuzzSize(f *testing.F) {
	for _, s := range []string{"4KiB", "1.5 GB", "100", "64m", "0", "9007199254740993", "4611686018427387903", "1e3", ".5k", "-1", "1.0000000000000002KiB"} {
		f.Add(s, int64(len(s))<<20)
	}
	f.Fuzz(func(t *testing.T, in string, n int64) {
		if v, err := units.ParseSize(in); err == nil {
			if v < 0 || v > math.MaxInt64/2 {
				t.Fatalf("%q parsed to %d bytes", in, v)
			}
			if whole, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(in), "B")), 10, 64); err == nil && whole != v {
				t.Fatalf("%q parsed to %d bytes", in, v)
			}
			if back, err := units.ParseSize(units.FormatSize(v)); err != nil || back != v {
				t.Fatalf("%q = %d bytes prints %q, which reads back as %d (%v)", in, v, units.FormatSize(v), back, err)
			}
		}
		if n < 0 || n > math.MaxInt64/2 {
			return
		}
		if back, err := units.ParseSize(units.FormatSize(n)); err != nil || back != n {
			t.Fatalf("%d bytes print %q, which reads back as %d (%v)", n, units.FormatSize(n), back, err)
		}
	})
}
