package cli

import (
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/term"
)

// parseLinkSpeed reads a link capacity in bits per second: "10G",
// "25Gbit", "1000Mb/s", "100000000".
func parseLinkSpeed(s string) (float64, error) {
	if s == "" {
		return 0, nil
	}
	v := strings.ToLower(strings.TrimSpace(s))
	for _, suf := range []string{"bit/s", "bps", "b/s", "bit", "b"} {
		if strings.HasSuffix(v, suf) {
			v = strings.TrimSuffix(v, suf)
			break
		}
	}
	mult := 1.0
	if n := len(v); n > 0 {
		if m, ok := map[byte]float64{'k': 1e3, 'm': 1e6, 'g': 1e9, 't': 1e12}[v[n-1]]; ok {
			v, mult = v[:n-1], m
		}
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f <= 0 {
		return 0, usagef("--link-speed: bad value %q: want bits per second, like 10G, 25Gbit or 1000M", s)
	}
	return f * mult, nil
}

// useColor is whether to colour output: stdout a terminal, no NO_COLOR
// (https://no-color.org) and no --no-color.
func useColor(env Env, noColor bool) bool {
	if noColor || env.Getenv("NO_COLOR") != "" {
		return false
	}
	return isTerminal(env.Stdout)
}

// isTerminal is whether w is a terminal (progress lines may redraw).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
