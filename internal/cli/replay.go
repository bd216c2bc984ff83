package cli

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/atomicfile"
	"github.com/objbench/objbench/replay"
	"github.com/objbench/objbench/replay/plan"
	"github.com/objbench/objbench/replay/synth"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/units"
	"github.com/objbench/objbench/workload"
)

type replayOptions struct {
	bench                                           benchOptions
	speed, window, format, defaultSize, concurrency string
	loop                                            string
	ops                                             int64
	leaveStages                                     []string
	strict, anonymize, keepBucket, synthesize       bool
	burst                                           bool
	reorder                                         time.Duration
	name                                            string
	duration                                        time.Duration
}

func newReplayCommand(env Env) *cobra.Command {
	o := &replayOptions{}
	cmd := &cobra.Command{
		Use:   "replay LOG... [flags]",
		Short: "Replay a traffic log (S3 access logs, CloudTrail, mc admin trace, an op log) against a store, or turn it into a workload file",
		Long: `Replay real traffic: read S3 server access logs, CloudTrail S3 data events,
MinIO 'mc admin trace --json' output or objbench's own op log (--op-log),
files or directories, plain, gzip or zstd, and issue each request again at
its original offset from the first (divided by --speed).

Pacing (--loop). Open loop: each request goes out at its offset whatever
the store does; latency also counts from when it was due (RESPONSE), more
workers start while requests find them all busy, and past --max-workers a
request is dropped and counted, as with --rate. Production traffic arrives
this way. Closed loop: --concurrency workers take the requests in the log's
order, each at its offset or, when every worker was busy past it, as soon
as one is free; none is dropped. An op log of objbench's own closed-loop
run replays closed loop on the most requests it had in flight (its
workers), as it ran; everything else open loop (--loop auto).

Order. The requests of one key keep the log's order in any pacing: a read
starts once the writes of its key before it have ended, a write once every
request of its key before it has; reads of a key overlap. A PUT that is
slower in the replay than in the log is not raced by the HEAD after it.
Access logs and CloudTrail give whole seconds: a second's requests are
spread evenly over it in log order (--burst: all at the second).

Keys map below objbench/RUN-ID/replay/ (hashed with --anonymize). The
objects the log reads before it writes them are written first, each once,
with the size the log gives: the read's own, an op log's left-out prepare
step's, or a later read's of the same key; else --default-size (the count
is printed). Entries that cannot be replayed are counted by reason
(--strict: the first is an error). The result is an ordinary result file,
and its table sets the latency the source recorded beside the replay's.

With --synthesize, nothing is sent: the log becomes a workload file (op
mix, sizes of successful transfers, key popularity, rate, read-after-write)
for objbench run. docs/replay.md has the whole story.`,
		Example: `  objbench replay ops.jsonl.zst                           # an op log, on the embedded server
  objbench replay --endpoint-url http://127.0.0.1:9000 --bucket bench --speed 2 access-logs/
  objbench replay --window 10m..20m --ops 100000 --anonymize cloudtrail/
  objbench replay --burst access-logs/                    # each second's requests at once
  objbench replay --loop open ops.jsonl.zst               # an op log's requests at their offsets, whatever the store does
  objbench replay --speed max -c 64 trace.json
  objbench replay --synthesize access-logs/ -o workload.yaml`,
		Args: positional(1, -1, "a log file or directory"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.synthesize {
				return synthesize(env, o, args)
			}
			return runReplay(cmd, env, o, args)
		},
	}
	f := cmd.Flags()
	b := &o.bench
	b.target.register(f)
	f.StringVar(&o.speed, "speed", "1", "divide the log's offsets by this (2: twice as fast), or max: back to back on --concurrency workers")
	f.StringVar(&o.window, "window", "", "replay only this slice, as offsets from the log's first request: FROM..TO (10m..20m, ..5m, 30s..)")
	f.Int64Var(&o.ops, "ops", 0, "replay at most this many requests")
	f.StringVar(&o.format, "format", "auto", "the log's format: auto, s3-access, cloudtrail, minio-trace or oplog")
	f.StringSliceVar(&o.leaveStages, "leave-stages", []string{"prepare", "cleanup"}, "op logs: leave out the steps of these stages (an objbench run's own setup and cleanup: the objects its main steps read are prepared anyway); --leave-stages '' replays every step")
	f.BoolVar(&o.strict, "strict", false, "stop at the first entry that cannot be replayed (exit 2, with its file:line) instead of counting it")
	f.BoolVar(&o.anonymize, "anonymize", false, "hash every key segment (HMAC-SHA256, a secret new each run): the tree and the popularity stay, the names do not")
	f.BoolVar(&o.keepBucket, "keep-bucket", false, "keep the log's bucket as the first key segment, so several buckets' keys stay apart")
	f.StringVar(&o.defaultSize, "default-size", "64KiB", "size of an object the log reads or writes without saying how large: "+units.Units)
	f.DurationVar(&o.reorder, "reorder-window", 10*time.Second, "how far out of time order the log's entries may come and still be put in order")
	f.StringVar(&o.loop, "loop", "auto", "how requests are paced: open (each at its offset; workers added while all are busy, drops counted), closed (--concurrency workers take them in order, each at its offset or when one is free), or auto: closed for an op log of a closed-loop run, open for anything else")
	f.BoolVar(&o.burst, "burst", false, "access logs and CloudTrail (whole-second times): issue each second's requests at once, as a burst, instead of spread over the second in log order")
	f.StringVarP(&o.concurrency, "concurrency", "c", "", "workers started at once (default: closed loop, the most requests the log had in flight; else 8; open loop: more start when requests find them busy, up to --max-workers)")
	f.IntVar(&b.maxWorkers, "max-workers", 0, "the most workers the replay may grow to; a request finding them all busy is dropped and counted (default: the log's busiest second times --speed times --request-timeout or 10s, at most 10000)")
	f.BoolVar(&o.synthesize, "synthesize", false, "send nothing: write the log's shape as a workload file (-o) for objbench run")
	f.StringVar(&o.name, "name", "", "with --synthesize: the workload's name")
	f.DurationVar(&o.duration, "duration", 0, "with --synthesize: the main stage's length (default: the log's span)")
	f.StringVarP(&b.out, "out", "o", "", "result file (default objbench-results/RUN-ID.json); with --synthesize: the workload file to write")
	f.StringVar(&b.csv, "csv", "", "also write the table as CSV to this file")
	f.StringVar(&b.html, "html", "", "also write the report as one self-contained HTML page with charts")
	f.Int64Var(&b.maxErrors, "max-errors", 0, "stop the replay after this many failed ops (default: never)")
	f.DurationVar(&b.grace, "grace", 10*time.Second, "how long in-flight ops may finish after the replay stops issuing")
	f.BoolVar(&b.noCleanup, "no-cleanup", false, "keep the objects the replay wrote (under objbench/RUN-ID/replay/)")
	f.Uint64Var(&b.seed, "seed", 0, "payload seed (default: random; recorded in the result)")
	f.BoolVarP(&b.quiet, "quiet", "q", false, "print only the latency/throughput table")
	f.StringVar(&b.listen, "listen", "", "serve the live view on this address while the replay runs")
	registerOpLog(f, &b.opLog)
	return cmd
}

// parseSpeed reads --speed: a factor above 0, or max (0).
func parseSpeed(s string) (float64, error) {
	if s == "max" {
		return 0, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v > 0) || v > 1e6 {
		return 0, usagef("--speed %q: want a factor above 0 (0.5, 2, 10) or max", s)
	}
	return v, nil
}

// parseWindow reads --window FROM..TO (either end may be left out).
func parseWindow(s string) (from, to time.Duration, err error) {
	if s == "" {
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(s, "..")
	if !ok {
		return 0, 0, usagef("--window %q: want FROM..TO, offsets from the log's first request (10m..20m, ..5m, 30s..)", s)
	}
	if a != "" {
		if from, err = time.ParseDuration(a); err != nil || from < 0 {
			return 0, 0, usagef("--window %q: FROM %q is not a duration (30s, 10m)", s, a)
		}
	}
	if b != "" {
		if to, err = time.ParseDuration(b); err != nil || to <= from {
			return 0, 0, usagef("--window %q: TO %q must be a duration after FROM", s, b)
		}
	}
	return from, to, nil
}

// planOptions checks the replay's flags.
func (o *replayOptions) planOptions(paths []string) (plan.Options, error) {
	var po plan.Options
	var err error
	if po.Speed, err = parseSpeed(o.speed); err != nil {
		return po, err
	}
	if po.From, po.To, err = parseWindow(o.window); err != nil {
		return po, err
	}
	if po.Format, err = replay.ParseFormat(o.format); err != nil {
		return po, usagef("--format: %v", err)
	}
	if po.DefaultSize, err = units.ParseSize(o.defaultSize); err != nil || po.DefaultSize <= 0 {
		return po, usagef("--default-size %q: want a size above 0 (64KiB, 1MiB)", o.defaultSize)
	}
	if o.ops < 0 {
		return po, usagef("--ops %d: want 0 (all) or more", o.ops)
	}
	conc := 0 // the log's, or plan.DefaultConcurrency
	if o.concurrency != "" {
		if conc, err = strconv.Atoi(o.concurrency); err != nil || conc < 1 || conc > 100_000 {
			return po, usagef("--concurrency %q: want one number of workers, 1 to 100000", o.concurrency)
		}
	}
	if po.Loop, err = plan.ParseLoop(o.loop); err != nil {
		return po, usagef("--loop: %v", err)
	}
	if o.bench.maxWorkers < 0 {
		return po, usagef("--max-workers %d: want 0 (default) or more", o.bench.maxWorkers)
	}
	if o.reorder <= 0 {
		return po, usagef("--reorder-window %v: want a duration above 0", o.reorder)
	}
	po.Paths, po.Strict, po.Window, po.Ops, po.Reorder, po.Burst = paths, o.strict, o.window, o.ops, o.reorder, o.burst
	for _, s := range o.leaveStages {
		if s = strings.TrimSpace(s); s != "" {
			po.LeaveStages = append(po.LeaveStages, s)
		}
	}
	po.Concurrency, po.MaxWorkers = conc, o.bench.maxWorkers
	po.Keys.KeepBucket = o.keepBucket
	if o.anonymize {
		po.Keys.Anonymize, po.Keys.Secret = true, make([]byte, 32)
		_, _ = rand.Read(po.Keys.Secret) // never fails (crypto/rand)
	}
	return po, nil
}

func runReplay(cmd *cobra.Command, env Env, o *replayOptions, paths []string) error {
	po, err := o.planOptions(paths)
	if err != nil {
		return err
	}
	b := &o.bench
	b.repeat = 1
	note := notes(env, b.quiet)
	b.plan = func(runID string) (*planned, error) {
		po.Namespace = "objbench/" + runID + "/"
		note("reading %s", strings.Join(paths, " "))
		p, err := plan.New(po)
		if err != nil {
			return nil, inputError{err}
		}
		src, err := p.Source()
		if err != nil {
			p.Close()
			return nil, inputError{err}
		}
		objs, err := p.Prepare()
		if err != nil {
			p.Close()
			_ = src.Close()
			return nil, err
		}
		speed := "as fast as the workers allow"
		if po.Speed > 0 {
			speed = fmt.Sprintf("%s of the log at speed %g", p.Span().Round(time.Millisecond), po.Speed)
		}
		note("replaying %d requests (%s); %d objects the log reads before writing them are prepared first", p.Issued(), speed, p.Prepared())
		if n := p.DefaultSized(); n > 0 {
			note("%d of them at --default-size %s: the log never says how large they are", n, o.defaultSize)
		}
		note("%s", paceNote(p, po))
		for _, l := range p.SkippedLines() {
			note("not replayed: %s", l)
		}
		rp := p.Replay(src, objs, b.target.timeout)
		return &planned{spec: p.Spec(), replay: rp, workers: p.Workers(b.target.timeout),
			info: func() *result.Replay {
				ri := p.Info(paths)
				ri.Held = rp.Held()
				return ri
			},
			err: func() error { return errors.Join(src.Err(), objs.Err()) },
			close: func() {
				_ = src.Close()
				_ = objs.Close()
				p.Close()
			}}, nil
	}
	return runBench(cmd.Context(), env, b, workload.Spec{})
}

// paceNote says how the replay paces the log's requests, and why.
func paceNote(p *plan.Plan, po plan.Options) string {
	conc := p.Concurrency()
	var s string
	switch p.Loop() {
	case plan.LoopClosed:
		s = fmt.Sprintf("closed loop: %d workers take the requests in the log's order, each at its offset or as soon as one is free", conc)
		if po.Loop == plan.LoopAuto {
			s += " (an op log of a closed-loop run; --loop open issues each at its offset whatever the store does)"
		}
		if n := p.LogConcurrency(); n > 0 && n != conc {
			s += fmt.Sprintf("; the log had at most %d in flight", n)
		}
	case plan.LoopOpen:
		s = fmt.Sprintf("open loop: each request at its offset; %d workers at first, more while all are busy", conc)
	default:
		s = fmt.Sprintf("back to back on %d workers", conc)
	}
	return s + "; the ops of one key keep the log's order"
}

// synthesize writes the log's shape as a workload file.
func synthesize(env Env, o *replayOptions, paths []string) error {
	if o.bench.out == "" {
		return usagef("--synthesize needs -o WORKLOAD.yaml: the workload file to write")
	}
	if err := checkOutputs(output{flag: "-o", path: o.bench.out}); err != nil {
		return err
	}
	po, err := o.planOptions(paths)
	if err != nil {
		return err
	}
	if o.duration < 0 {
		return usagef("--duration %v: want 0 (the log's span) or more", o.duration)
	}
	r, err := replay.Open(paths, replay.Options{Format: po.Format, Strict: po.Strict, LeaveStages: po.LeaveStages})
	if err != nil {
		return inputError{err}
	}
	defer r.Close()
	prof := synth.New(synth.Options{})
	for r.Next() {
		prof.Add(r.Record())
	}
	if err := r.Err(); err != nil {
		return inputError{err}
	}
	factor := po.Speed
	if factor == 0 {
		return usagef("--speed max has no rate to synthesize: give a factor (1 keeps the log's rate)")
	}
	res, err := prof.Workload(synth.WorkloadOptions{Name: o.name, Duration: o.duration, RateFactor: factor})
	if err != nil {
		return inputError{err}
	}
	if err := atomicfile.Write(o.bench.out, 0o644, func(w io.Writer) error { return synth.WriteYAML(w, res) }); err != nil {
		return inputf("-o %s: %v", o.bench.out, err)
	}
	if n := res.Summary.Skipped; n > 0 {
		notes(env, o.bench.quiet)("not used: %d copies, batch deletes, version listings or compare-and-swap writes (a workload file cannot take their sources from a log)", n)
	}
	for reason, s := range r.Stats().Skipped {
		notes(env, o.bench.quiet)("not used: %d %s (first at %s)", s.Count, reason, s.First)
	}
	notes(env, o.bench.quiet)("workload: %s (objbench run --dry-run %s explains it)", o.bench.out, o.bench.out)
	return nil
}
