package run

import (
	"context"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/sysmon"
)

// watch samples the machine while a run goes on; a nil watch (no /proc,
// or not asked for) does nothing, and the run goes on without a timeline.
type watch struct {
	s      *sysmon.Sampler
	target sysmon.Target
}

// startWatch starts the system sampler for a run against info (onSample,
// if set, sees each sample). It samples until finish, also through
// cleanup after an interrupt.
func startWatch(ctx context.Context, info result.Target, linkSpeed float64, onSample func(sysmon.Sample), note func(string, ...any)) *watch {
	t, conns := targetFacts(ctx, info)
	t.LinkSpeed = linkSpeed
	s, err := sysmon.NewSampler(sysmon.Config{Loopback: t.Loopback, Process: true, Conns: conns, OnSample: onSample,
		TargetProcess: t.Loopback && !t.Embedded}) // a local server of its own: its CPU is measured apart from others
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
func (w *watch) finish(res *result.Run) {
	if w == nil {
		return
	}
	tl, _ := w.s.Stop() // sampling never fails a run; what it missed is in the timeline's notes
	res.System = sysmon.Judge(tl, res.Steps, res.Machine, w.target)
}

// targetFacts says where the target is: on loopback (its traffic then
// only shows on lo), and which connections are objbench's to it.
func targetFacts(ctx context.Context, info result.Target) (sysmon.Target, sysmon.ConnFilter) {
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
	t.Loopback = OnThisMachine(ctx, u.Hostname())
	return t, f
}

// OnThisMachine is whether host resolves to a loopback address or to one
// of this machine's own: either way the kernel carries its traffic on lo.
func OnThisMachine(ctx context.Context, host string) bool {
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
