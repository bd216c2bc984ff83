package workload_test

import (
	"strings"
	"testing"

	"github.com/objbench/objbench/workload"
)

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{{"0", 0}, {"100", 100}, {"4KiB", 4096}, {"4kb", 4000}, {"1.5 MiB", 1572864}, {"64m", 64 << 20}, {"2GiB", 2 << 30}, {"10GB", 10e9}, {"7B", 7}} {
		got, err := workload.ParseSize(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"4XB", "", "KiB", "1.5B", "-1", "1e3"} {
		if _, err := workload.ParseSize(bad); err == nil || !strings.Contains(err.Error(), "bad size") {
			t.Errorf("ParseSize(%q) err = %v; want a 'bad size' error", bad, err)
		}
	}
}
