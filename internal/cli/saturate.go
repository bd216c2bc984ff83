package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/report"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/run"
	"github.com/objbench/objbench/saturate"
	"github.com/objbench/objbench/units"
	"github.com/objbench/objbench/workload"
)

type saturateOptions struct {
	target     targetOptions
	size       string
	objects    int
	slo        string
	maxErr     float64
	start, max string
	factor     float64
	step       time.Duration
	maxWorkers int
	maxTime    time.Duration
	out        string
	by         string
	startConc  int
	maxConc    int
	quiet      bool
}

func newSaturateCommand(env Env) *cobra.Command {
	var o saturateOptions
	cmd := &cobra.Command{
		Use:   "saturate get|put|stat",
		Short: "Step the offered rate up until the latency objective breaks, and report the latency-throughput curve and the knee",
		Long: `Run one op open loop at rising rates (each step --factor times the last;
with --by concurrency, closed loop at rising worker counts) until the response-time p99 crosses --slo, the error+dropped ratio crosses
--max-error-ratio, throughput stops growing (less than half the added
offered rate is served), --max-rate is passed or --max-time runs out.

It prints the curve (offered and achieved rate, response-time p50/p99,
errors, dropped slots) and the knee: the highest rate that met the
objective. --out writes a result file of the whole search (every step's
ops and latencies, the curve and the knee) that objbench report, compare
and the HTML report read.`,
		Example: `  objbench saturate get --endpoint-url http://10.0.0.5:9000 --bucket bench --size 64KiB --slo 'p99<50ms'
  objbench saturate put --start-rate 200/s --factor 2 --step 3s --max-time 1m --out knee.json
  objbench report knee.json`,
		Args: positional(1, 1, "the operation to saturate (get, put or stat)"),
		RunE: func(cmd *cobra.Command, args []string) error { return runSaturate(cmd.Context(), env, &o, args[0]) },
	}
	f := cmd.Flags()
	o.target.register(f)
	f.StringVar(&o.size, "size", "4KiB", "object size: "+units.Units)
	f.IntVar(&o.objects, "objects", 64, "objects to prepare for get/stat")
	f.StringVar(&o.slo, "slo", "p99<50ms", "latency objective on response time (from intended start)")
	f.Float64Var(&o.maxErr, "max-error-ratio", 0.01, "highest (errors + dropped slots) / slots a step may have")
	f.StringVar(&o.start, "start-rate", "100/s", "first offered rate")
	f.StringVar(&o.max, "max-rate", "100000/s", "highest offered rate to try")
	f.Float64Var(&o.factor, "factor", 1.5, "each step's rate is the last one's times this")
	f.DurationVar(&o.step, "step", 5*time.Second, "how long each rate runs")
	f.IntVar(&o.maxWorkers, "max-workers", 64, "the most workers serving the schedule; a slot finding them all busy is dropped")
	f.DurationVar(&o.maxTime, "max-time", 2*time.Minute, "no step starts after this much time")
	f.StringVarP(&o.out, "out", "o", "", "write the search as a result file (every step, the curve, the knee) that objbench report reads")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress lines: the curve and the knee only")
	f.StringVar(&o.by, "by", "rate", "what to step: rate (open loop, response time) or concurrency (closed loop, latency)")
	f.IntVar(&o.startConc, "start-concurrency", 1, "with --by concurrency: the first number of workers")
	f.IntVar(&o.maxConc, "max-concurrency", 256, "with --by concurrency: the most workers to try")
	return cmd
}

func parseSLO(s string) (time.Duration, error) {
	p, v, ok := strings.Cut(strings.ReplaceAll(s, " ", ""), "<")
	d, err := time.ParseDuration(v)
	if !ok || p != "p99" || err != nil || d <= 0 {
		return 0, fmt.Errorf("bad --slo %q: want p99<DURATION, like p99<50ms", s)
	}
	return d, nil
}

func runSaturate(ctx context.Context, env Env, o *saturateOptions, op string) error {
	if op != "get" && op != "put" && op != "stat" {
		return usagef("saturate %s: want get, put or stat", op)
	}
	p99, err := parseSLO(o.slo)
	if err != nil {
		return usageError{err}
	}
	size, err := units.ParseSize(o.size)
	if err != nil {
		return usagef("--size: %v", err)
	}
	start, err1 := workload.ParseRate(o.start)
	maxRate, err2 := workload.ParseRate(o.max)
	if err1 != nil || err2 != nil || o.factor <= 1 || o.step <= 0 || o.maxWorkers < 1 || o.objects < 1 {
		return usagef("bad --start-rate/--max-rate/--factor/--step/--max-workers/--objects: want rates like 100/s, factor > 1, positive step, workers and objects")
	}
	cfg := saturate.Config{Start: start.PerSec, Max: maxRate.PerSec, Factor: o.factor,
		Objective: saturate.Objective{P99: p99, MaxErrorRatio: o.maxErr}, Deadline: time.Now().Add(o.maxTime)}
	conns := o.maxWorkers
	switch o.by {
	case "rate":
	case "concurrency":
		if o.startConc < 1 || o.maxConc < o.startConc {
			return usagef("--start-concurrency %d, --max-concurrency %d: want 1 <= start <= max", o.startConc, o.maxConc)
		}
		cfg.Start, cfg.Max, cfg.Whole, conns = float64(o.startConc), float64(o.maxConc), true, o.maxConc
	default:
		return usagef("--by %q: want rate or concurrency", o.by)
	}
	if err := checkOutputs(output{flag: "--out", path: o.out}); err != nil {
		return err
	}
	note := notes(env, o.quiet)
	tgt, err := o.target.open(ctx, env, conns, note)
	if err != nil {
		return err
	}
	defer func() { _ = tgt.Close(context.WithoutCancel(ctx)) }()
	var rec saturate.Record
	cfg.Measure = func(ctx context.Context, v float64) (saturate.Point, error) {
		if o.by == "concurrency" {
			note("saturate: %s with %.0f workers for %v", op, v, o.step)
		} else {
			note("saturate: %s at %.0f/s for %v", op, v, o.step)
		}
		out, p, err := measureStep(ctx, tgt, op, size, o, v)
		if out != nil {
			rec.Add(out, v, o.by == "concurrency")
		}
		return p, err
	}
	res, err := saturate.Search(ctx, cfg)
	if err != nil {
		return err
	}
	whole := rec.Run(run.NewRunID(), res, cfg, o.by == "concurrency")
	if whole == nil { // no step ran: the curve alone
		whole = &result.Run{Saturation: &result.Saturation{StoppedBy: res.StoppedBy}}
	}
	report.WriteSaturation(env.Stdout, whole)
	if o.out != "" && len(whole.Steps) > 0 {
		whole.Tool = result.ToolFromBuild("objbench", version())
		if err := result.Write(o.out, whole); err != nil {
			return writeError("write result", o.out, err)
		}
		note("result: %s (objbench report %s shows every step)", o.out, o.out)
	}
	if res.StoppedBy == "interrupted" {
		return errInterrupted
	}
	return nil
}

// measureStep runs one step at v, an open-loop rate or (--by concurrency)
// a closed-loop worker count, with objects prepared first for reads and
// everything cleaned up after, and returns its point.
func measureStep(ctx context.Context, tgt *run.Target, op string, size int64, o *saturateOptions, v float64) (*result.Run, saturate.Point, error) {
	s := workload.Simple{Name: op, Concurrency: []int{o.maxWorkers}, Bounds: workload.Bounds{Duration: o.step}, Size: size,
		Rates: []workload.Rate{{PerSec: v, MaxWorkers: o.maxWorkers}}, Objects: o.objects}
	if o.by == "concurrency" {
		s.Concurrency, s.Rates, s.Objects = []int{int(v)}, nil, max(o.objects, int(v))
	}
	sp := s.Spec()
	sp.Name = "saturate"
	out, err := run.Run(ctx, sp, tgt, run.Options{NoWatch: true, Grace: 10 * time.Second})
	if err != nil {
		return out, saturate.Point{}, err
	}
	if out.Interrupted {
		return out, saturate.Point{}, context.Canceled
	}
	for _, st := range out.Steps {
		if st.Kind != result.KindMain {
			continue
		}
		for _, t := range st.Streams[0].Totals {
			if t.Op == strings.ToUpper(op) {
				return out, pointOf(t), nil
			}
		}
	}
	return out, saturate.Point{}, fmt.Errorf("saturate: the step at %.0f measured no %s", v, op)
}

func pointOf(t result.OpTotal) saturate.Point {
	p := saturate.Point{Achieved: t.OpsPerSec, MiBPerSec: t.BytesPerSec / (1 << 20),
		Slots: t.Ops + t.Dropped, Errors: t.Ops - t.OK, Dropped: t.Dropped}
	lat := t.Latency // closed loop: there is no intended start
	if t.Response != nil {
		lat = *t.Response
	}
	p.P50 = time.Duration(lat.P50) * time.Microsecond
	p.P99 = time.Duration(lat.P99) * time.Microsecond
	return p
}
