package cli

import (
	"runtime/debug"
	"testing"
)

// Many workers lower the GC's headroom for the run, unless GOGC or
// GOMEMLIMIT is set; fewer leave it; the run's end restores it.
func TestPaceGC(t *testing.T) {
	for _, c := range []struct {
		name    string
		workers int
		env     map[string]string
		want    int
	}{
		{"many", 10000, nil, manyWorkersGCPercent},
		{"few", 1000, nil, 100},
		{"GOGC set", 10000, map[string]string{"GOGC": "100"}, 100},
		{"GOMEMLIMIT set", 10000, map[string]string{"GOMEMLIMIT": "1GiB"}, 100},
	} {
		t.Run(c.name, func(t *testing.T) {
			prev := debug.SetGCPercent(100)
			defer debug.SetGCPercent(prev)
			notes := 0
			env := Env{Getenv: func(k string) string { return c.env[k] }}
			restore := paceGC(env, c.workers, func(string, ...any) { notes++ })
			got := debug.SetGCPercent(-1)
			debug.SetGCPercent(got)
			restore()
			after := debug.SetGCPercent(100)
			if got != c.want || after != 100 || (notes > 0) != (c.want != 100) {
				t.Errorf("GC percent %d during the run, %d after, %d notes; want %d, 100, a note only if changed", got, after, notes, c.want)
			}
		})
	}
}
