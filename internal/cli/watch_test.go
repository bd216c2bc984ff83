package cli

import (
	"testing"
)

func TestParseLinkSpeed(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		bad  bool
	}{
		{"", 0, false},
		{"10G", 10e9, false},
		{"25Gbit", 25e9, false},
		{"1000Mb/s", 1e9, false},
		{"100000000", 1e8, false},
		{"2.5gbps", 2.5e9, false},
		{"fast", 0, true},
		{"-1G", 0, true},
	} {
		t.Run(c.in, func(t *testing.T) {
			got, err := parseLinkSpeed(c.in)
			if (err != nil) != c.bad || got != c.want {
				t.Errorf("parseLinkSpeed(%q) = %v, %v; want %v, error %v", c.in, got, err, c.want, c.bad)
			}
		})
	}
}
