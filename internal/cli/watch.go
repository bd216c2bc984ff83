package cli

import (
	"context"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/objbench/objbench/report"
	"github.com/objbench/objbench/sysmon"
)

// watch samples the machine while a run goes on; a nil watch (no /proc)
// does nothing, and the run goes on without a timeline.
type watch struct {
	s      *sysmon.Sampler
	target sysmon.Target
}

// startWatch starts the system sampler for a run against tgt (onSample,
// if set, sees each sample). It samples until finish, also through
// cleanup after an interrupt.
func startWatch(ctx context.Context, info report.Target, linkSpeed float64, onSample func(sysmon.Sample), note func(string, ...any)) *watch {
	t, conns := targetFacts(ctx, info)
	t.LinkSpeed = linkSpeed
	s, err := sysmon.NewSampler(sysmon.Config{Loopback: t.Loopback, Process: true, Conns: conns, OnSample: onSample})
	if err != nil {
		note("not sampling the machine (no system timeline or verdict): %v", err)
		return nil
	}
	s.Start(context.WithoutCancel(ctx), time.Now())
	return &watch{s: s, target: t}
}

// stepStarted aligns the sampler's seconds to a step's.
func (w *watch) stepStarted(t time.Time) {
	if w != nil {
		w.s.Align(t)
	}
}

// finish stops sampling and files the timeline and verdict in res.
func (w *watch) finish(res *report.Result) {
	if w == nil {
		return
	}
	tl, _ := w.s.Stop() // sampling never fails a run; what it missed is in the timeline's notes
	res.System = report.NewSystem(tl, res.Steps, res.Machine, w.target)
}

// targetFacts says where the target is: on loopback (its traffic then
// only shows on lo), and which connections are objbench's to it.
func targetFacts(ctx context.Context, info report.Target) (sysmon.Target, sysmon.ConnFilter) {
	t := sysmon.Target{Kind: info.Kind, Embedded: info.Embedded}
	if info.Kind != "s3" {
		return t, sysmon.ConnFilter{}
	}
	u, err := url.Parse(info.Endpoint)
	if err != nil || u.Host == "" { // AWS S3 itself
		return t, sysmon.ConnFilter{Port: 443}
	}
	port, _ := strconv.Atoi(u.Port())
	if port == 0 {
		port = map[string]int{"http": 80, "https": 443}[u.Scheme]
	}
	f := sysmon.ConnFilter{Port: port}
	if ip := net.ParseIP(u.Hostname()); ip != nil {
		f.IP = ip
	}
	t.Loopback = onThisMachine(ctx, u.Hostname())
	return t, f
}

// onThisMachine is whether host resolves to a loopback address or to one
// of this machine's own: either way the kernel carries its traffic on lo.
func onThisMachine(ctx context.Context, host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return false
	}
	own := map[string]bool{}
	if ifAddrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range ifAddrs {
			if n, ok := a.(*net.IPNet); ok {
				own[n.IP.String()] = true
			}
		}
	}
	for _, a := range addrs {
		if a.IP.IsLoopback() || own[a.IP.String()] {
			return true
		}
	}
	return false
}

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
