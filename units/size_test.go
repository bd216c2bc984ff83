package units_test

import (
	"strings"
	"testing"

	"github.com/objbench/objbench/units"
)

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{{"0", 0}, {"100", 100}, {"4KiB", 4096}, {"4kb", 4000}, {"1.5 MiB", 1572864}, {"64m", 64 << 20}, {"2GiB", 2 << 30}, {"10GB", 10e9}, {"7B", 7}} {
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

// Whatever ParseSize accepts, FormatSize writes back to the same count
// (below 2^53 bytes, where a float64 holds every whole number).
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"4KiB", "1.5 GB", "100", "64m", "0.5k", " 2 TiB ", "1e3", "KiB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := units.ParseSize(s)
		if err != nil {
			if !strings.Contains(err.Error(), "bad size") {
				t.Fatalf("ParseSize(%q): error %q does not say 'bad size'", s, err)
			}
			return
		}
		if n < 0 {
			t.Fatalf("ParseSize(%q) = %d, negative", s, n)
		}
		if n >= 1<<53 {
			return
		}
		back, err := units.ParseSize(units.FormatSize(n))
		if err != nil || back != n {
			t.Fatalf("ParseSize(%q) = %d; FormatSize wrote %q, read back as %d, %v", s, n, units.FormatSize(n), back, err)
		}
	})
}
