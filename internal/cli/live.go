package cli

import (
	"context"
	"net"
	"strconv"
	"time"

	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/report"
	"github.com/objbench/objbench/report/live"
	"github.com/objbench/objbench/sysmon"
	"github.com/objbench/objbench/workload"
)

// liveServer is --listen: the live page, event stream and /metrics of a
// run. A nil liveServer (no --listen) does nothing.
type liveServer struct {
	ln net.Listener
	v  *live.View
}

// openLive listens on addr before any work starts, so a bad address stops
// the run at once (exit code 2).
func openLive(addr string) (*liveServer, error) {
	if addr == "" {
		return nil, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, usagef("--listen %s: %v", addr, err)
	}
	return &liveServer{ln: ln}, nil
}

// start serves res's run and says where (a note: not with --quiet, so
// give a fixed port then).
func (l *liveServer) start(res *report.Result, note func(string, ...any)) {
	if l == nil {
		return
	}
	l.v = live.New(live.Info{RunID: res.RunID, Target: res.Target.Describe()})
	l.v.Start(l.ln)
	note("live view: http://%s/", browsable(l.ln.Addr()))
}

// browsable is the address to type into a browser: an unspecified host
// (listening on every interface) is reachable as localhost.
func browsable(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		return a.String()
	}
	return net.JoinHostPort("localhost", strconv.Itoa(tcp.Port))
}

// hook feeds the view from the run's hooks, after the ones already set.
func (l *liveServer) hook(cfg *loadgen.Config) {
	if l == nil || l.v == nil {
		return
	}
	onStep, started, onSecond := cfg.OnStep, cfg.StepStarted, cfg.OnSecond
	cfg.OnStep = func(st workload.Stage, i int) {
		if onStep != nil {
			onStep(st, i)
		}
		l.v.Step(st, i)
	}
	cfg.StepStarted = func(t time.Time) {
		if started != nil {
			started(t)
		}
		l.v.StepStarted(t)
	}
	cfg.OnSecond = func(stream string, s metrics.Second) {
		if onSecond != nil {
			onSecond(stream, s)
		}
		l.v.Second(stream, s)
	}
}

// sample is the system sampler's hook (nil without a view).
func (l *liveServer) sample() func(sysmon.Sample) {
	if l == nil || l.v == nil {
		return nil
	}
	return l.v.Sample
}

// finish sends the final event: how the run ended.
func (l *liveServer) finish(res *report.Result, runErr error) {
	if l == nil || l.v == nil {
		return
	}
	outcome := "completed"
	switch {
	case runErr != nil:
		outcome = "failed: " + runErr.Error()
	case res.Interrupted:
		outcome = "interrupted"
	case res.Aborted != "":
		outcome = "stopped early: " + res.AbortDetail
	}
	l.v.Finish(outcome)
}

// close shuts the server down once pages that got the final event have
// disconnected (a few seconds at most), so a script never hangs on it.
func (l *liveServer) close(ctx context.Context) {
	if l == nil {
		return
	}
	if l.v == nil {
		_ = l.ln.Close()
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	_ = l.v.Close(ctx) // the run's outcome does not depend on its viewers
}
