package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/faultserver"
	"github.com/objbench/objbench/workload"
)

type selftestOptions struct {
	duration time.Duration
	workers  int
	checks   []string
	stall    string  // FOR/EVERY
	rate     float64 // open-loop rate of the stall check
}

// selftestCheck is one part of selftest; ok=false: the check failed.
type selftestCheck struct {
	name string
	run  func(context.Context, io.Writer, selftestOptions) (ok bool, err error)
}

var selftestChecks = []selftestCheck{{"ceiling", selftestCeiling}, {"latency", selftestLatency}, {"accounting", selftestAccounting}, {"stall", selftestStallCheck}}

func newSelftestCommand(env Env) *cobra.Command {
	var o selftestOptions
	cmd := &cobra.Command{
		Use:   "selftest",
		Short: "Check objbench's own numbers on this machine against a server whose behaviour is known, and measure the client's ceiling",
		Long: `Run objbench against servers in this process whose behaviour is known
exactly, and print how far its numbers are from the truth:

  - the client's ceiling: ops/s and MiB/s against a null target that does
    nothing. A result near these numbers is objbench's limit on this
    machine, not the store's;
  - latency: GETs against known service delays; each reported percentile
    is compared with the server's own record (within 2% or 0.5 ms);
  - accounting: GETs under 503 SlowDown, connection resets, truncated and
    corrupted bodies; every op must be counted in its class, and every
    corrupted byte caught by verification;
  - a stall of 200 ms every second: open loop (fixed rate) must show it in
    its p99; closed loop, for comparison, hides it.

It takes about 15 seconds and exits 1 if a check fails.`,
		Example: `  objbench selftest`,
		Args:    noArgs(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.duration <= 0 || o.workers < 0 {
				return usagef("--duration must be positive and --workers not negative")
			}
			if o.workers == 0 {
				o.workers = 2 * runtime.GOMAXPROCS(0)
			}
			if _, err := parseStall(o.stall); err != nil || o.rate <= 0 {
				return usagef("--stall %q / --stall-rate %v: want FOR/EVERY with FOR < EVERY (200ms/1s) and a positive rate", o.stall, o.rate)
			}
			for _, c := range o.checks {
				if !slices.ContainsFunc(selftestChecks, func(k selftestCheck) bool { return k.name == c }) {
					return usagef("--checks: unknown check %q (want ceiling, latency, accounting, stall)", c)
				}
			}
			return runSelftest(cmd.Context(), env.Stdout, o)
		},
	}
	f := cmd.Flags()
	f.DurationVar(&o.duration, "duration", 2*time.Second, "how long each ceiling measurement runs")
	f.IntVar(&o.workers, "workers", 0, "workers for the ceiling measurements; 0: two per CPU objbench may use (GOMAXPROCS)")
	f.StringVar(&o.stall, "stall", "200ms/1s", "stall check: every request held FOR out of every EVERY (2s/10s is the full scenario; runs 3 periods)")
	f.Float64Var(&o.rate, "stall-rate", 200, "stall check: the open-loop rate (ops/s)")
	f.StringSliceVar(&o.checks, "checks", []string{"ceiling", "latency", "accounting", "stall"}, "which checks to run")
	return cmd
}

func runSelftest(ctx context.Context, w io.Writer, o selftestOptions) error {
	fmt.Fprintf(w, "objbench selftest: %d CPUs; the servers run in this process and share them\n\n", runtime.GOMAXPROCS(0))
	var failed []string
	for _, part := range selftestChecks {
		if !slices.Contains(o.checks, part.name) {
			continue
		}
		ok, err := part.run(ctx, w, o)
		if err != nil {
			return fmt.Errorf("selftest %s: %w", part.name, err)
		}
		if !ok {
			failed = append(failed, part.name)
		}
		fmt.Fprintln(w)
	}
	if len(failed) > 0 {
		return fmt.Errorf("selftest: %v failed: numbers measured on this machine are off by more than the bounds (a busy machine does that; run again when it is idle)", failed)
	}
	fmt.Fprintln(w, "selftest: all checks passed")
	return nil
}

func selftestCeiling(ctx context.Context, w io.Writer, o selftestOptions) (bool, error) {
	t, err := startSelftestTarget(ctx, faultserver.Config{Null: true})
	if err != nil {
		return false, err
	}
	defer func() { _ = t.close(ctx) }()
	fmt.Fprintf(w, "Client ceiling: %d workers against an in-process null target, %v each\n", o.workers, o.duration)
	for _, c := range []struct {
		op   string
		size int64
	}{{"get", 4 << 10}, {"put", 4 << 10}, {"get", 4 << 20}, {"put", 4 << 20}} {
		tot, _, err := t.run(ctx, selftestStream(c.op, o.workers, workload.Bounds{Duration: o.duration}, c.size, map[string]int{"get": o.workers * 4}[c.op]))
		if err != nil {
			return false, err
		}
		fmt.Fprintf(w, "  %-4s %-8s %10.0f ops/s %9.1f MiB/s   p50 %s p99 %s\n", tot.Op, sizeLabel(c.size), tot.OpsPerSec,
			tot.BytesPerSec/(1<<20), usString(tot.Latency.P50), usString(tot.Latency.P99))
	}
	fmt.Fprintln(w, "  A store measured near these rates is measured at objbench's limit on this machine, not its own.")
	return true, nil
}

func selftestLatency(ctx context.Context, w io.Writer, _ selftestOptions) (bool, error) {
	t, err := startSelftestTarget(ctx, faultserver.Config{Seed: 1, Delay: selftestDelay})
	if err != nil {
		return false, err
	}
	defer func() { _ = t.close(ctx) }()
	const n = 1200
	tot, _, err := t.run(ctx, selftestStream("get", 2, workload.Bounds{Ops: n, Duration: time.Minute}, 1<<10, 32))
	if err != nil {
		return false, err
	}
	fmt.Fprintln(w, "Latency: 2 workers, 1200 GETs, service delay 2-10 ms, 2% at 50 ms, 0.5% at 100 ms (closed loop)")
	fmt.Fprintln(w, "  truth = the server's own time per request (its timers overshoot the planned delay by up to ~1 ms)")
	fmt.Fprintf(w, "  %-6s %11s %11s %11s\n", "", "TRUTH", "MEASURED", "ERROR")
	ok := tot.Ops == n && tot.OK == n
	truth := faultserver.Served(t.srv.Events(), http.MethodGet)
	for _, r := range faultserver.ComparePercentiles(tot.Latency, truth, 0.02, 500*time.Microsecond) {
		ok = ok && r.Within
		fmt.Fprintf(w, "  %-6s %11s %11s %+8.3f ms (%+.2f%%) %s\n", r.Name, usString(r.Truth), usString(r.Got),
			float64(r.Got-r.Truth)/1e3, 100*float64(r.Got-r.Truth)/float64(max(r.Truth, 1)), verdictWord(r.Within))
	}
	return ok, nil
}

func selftestAccounting(ctx context.Context, w io.Writer, _ selftestOptions) (bool, error) {
	t, err := startSelftestTarget(ctx, faultserver.Config{Seed: 2, Delay: faultserver.Delay{Base: 200 * time.Microsecond},
		SlowDown: 0.05, Reset: 0.04, Truncate: 0.04, Corrupt: 0.04})
	if err != nil {
		return false, err
	}
	defer func() { _ = t.close(ctx) }()
	s := selftestStream("get", 4, workload.Bounds{Ops: 800, Duration: time.Minute}, 16<<10, 32)
	s.Data.Verify = true
	tot, _, err := t.run(ctx, s)
	if err != nil {
		return false, err
	}
	counts, served := t.srv.Counts()
	var errs int64
	for _, n := range tot.Errors {
		errs += n
	}
	cut := counts[faultserver.Reset] + counts[faultserver.Truncate]
	ok := tot.Ops == tot.OK+errs && tot.Ops == served && tot.OK == counts[faultserver.None] &&
		tot.Errors["http_503"] == counts[faultserver.SlowDown] && tot.Errors["checksum"] == counts[faultserver.Corrupt] &&
		errs-tot.Errors["http_503"]-tot.Errors["checksum"] == cut
	fmt.Fprintln(w, "Accounting: 800 GETs with verification; 5% SlowDown, 4% each reset, truncated, corrupted")
	fmt.Fprintf(w, "  server: %d requests: %d whole, %d SlowDown, %d reset, %d truncated, %d corrupted\n", served,
		counts[faultserver.None], counts[faultserver.SlowDown], counts[faultserver.Reset], counts[faultserver.Truncate], counts[faultserver.Corrupt])
	fmt.Fprintf(w, "  client: %d issued = %d ok + %d errors %v   %s\n", tot.Ops, tot.OK, errs, tot.Errors, verdictWord(ok))
	return ok, nil
}

func selftestStallCheck(ctx context.Context, w io.Writer, opt selftestOptions) (bool, error) {
	stall, err := parseStall(opt.stall)
	if err != nil {
		return false, err
	}
	t, err := startSelftestTarget(ctx, faultserver.Config{Seed: 3, Delay: faultserver.Delay{Base: time.Millisecond}, Stall: stall})
	if err != nil {
		return false, err
	}
	defer func() { _ = t.close(ctx) }()
	// Three periods; enough workers that every slot inside a stall has one.
	run := 3 * stall.Every
	slots := int64(opt.rate * run.Seconds())
	workers := int(opt.rate*stall.For.Seconds()*1.5) + 16
	open := selftestStream("get", workers, workload.Bounds{Ops: slots, Duration: 2 * run}, 1<<10, 32)
	open.Rate = &workload.Rate{PerSec: opt.rate}
	o, _, err := t.run(ctx, open)
	if err != nil {
		return false, err
	}
	if o.Response == nil {
		return false, errors.New("the open-loop run recorded no response times")
	}
	truth := faultserver.Served(t.srv.Events(), http.MethodGet).ValueAtQuantile(99)
	c, _, err := t.run(ctx, selftestStream("get", 4, workload.Bounds{Duration: run}, 1<<10, 32))
	if err != nil {
		return false, err
	}
	f := float64(stall.For) / float64(stall.Every)
	predicted := int64(float64(stall.For/time.Microsecond)*(1-0.01/f)) + 1000
	// The client is right when it reports what the server did (within 5%
	// or 2 ms); the prediction says what that should be on an idle machine.
	tol := max(truth/20, 2000)
	ok := o.Response.P99 >= truth-tol && o.Response.P99 <= truth+tol
	fmt.Fprintf(w, "Stall: every request held %v every %v (%.0f%% of the time), 1 ms service otherwise, %v\n", stall.For, stall.Every, 100*f, run)
	fmt.Fprintf(w, "  a user arriving at random waits p99 = %s (predicted from the stall fraction); server's record: p99 %s\n",
		usString(predicted), usString(truth))
	fmt.Fprintf(w, "  open loop, %g/s, %d workers: response p99 %s p99.9 %s, service p99 %s, %d issued, %d dropped   %s\n",
		opt.rate, workers, usString(o.Response.P99), usString(o.Response.P999), usString(o.Latency.P99), o.Ops, o.Dropped, verdictWord(ok))
	fmt.Fprintf(w, "  closed loop, 4 workers: p99 %s p99.9 %s max %s over %d ops (the stall hides in few ops)\n",
		usString(c.Latency.P99), usString(c.Latency.P999), usString(c.Latency.Max), c.Ops)
	return ok, nil
}

// parseStall reads FOR/EVERY; the first stall starts 30% into the period.
func parseStall(s string) (faultserver.Stall, error) {
	a, b, ok := strings.Cut(s, "/")
	hold, err1 := time.ParseDuration(a)
	every, err2 := time.ParseDuration(b)
	if !ok || err1 != nil || err2 != nil || hold <= 0 || every <= hold {
		return faultserver.Stall{}, fmt.Errorf("bad --stall %q", s)
	}
	return faultserver.Stall{Every: every, For: hold, Offset: every * 3 / 10}, nil
}

func usString(us int64) string { return fmt.Sprintf("%.3f ms", float64(us)/1e3) }

func sizeLabel(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%dMiB", n>>20)
	}
	return fmt.Sprintf("%dKiB", n>>10)
}

func verdictWord(ok bool) string {
	if ok {
		return "ok"
	}
	return "FAIL"
}
