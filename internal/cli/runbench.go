package cli

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/objbench/objbench/atomicfile"
	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/payload"
	"github.com/objbench/objbench/report"
	"github.com/objbench/objbench/sysmon"
	"github.com/objbench/objbench/workload"
)

// runBench runs spec against the target the options name, writes the result
// file (also when interrupted), prints the table and returns the error that
// decides the exit code.
func runBench(ctx context.Context, env Env, o *benchOptions, sp workload.Spec) error {
	note := notes(env, o.quiet)
	if errs := sp.Validate(); len(errs) > 0 {
		return usageError{errors.Join(errs...)}
	}
	if len(o.target.targets) > 1 {
		return runTargets(ctx, env, o, sp)
	}
	runID := newRunID()
	lv, err := openLive(o.listen) // a bad --listen stops the run before any work
	if err != nil {
		return err
	}
	defer lv.close(ctx)
	if o.out == "" {
		o.out = filepath.Join("objbench-results", runID+".json")
	}
	out := o.out
	maxConc := 1
	for _, st := range sp.Stages {
		for _, s := range st.Streams {
			maxConc = max(maxConc, s.MaxConcurrency())
		}
	}
	tgt, err := o.target.open(ctx, env, maxConc, note)
	if err != nil {
		return err
	}
	defer func() { _ = tgt.close(context.WithoutCancel(ctx)) }()
	if err := checkWritable(out); err != nil { // before any work, after every input is checked
		return usagef("--out %s: %v", out, err)
	}
	seed := o.seed
	if seed == 0 {
		seed = randomSeed()
	}
	block, err := payload.NewBlock(payload.DefaultBlockSize, seed, 0)
	if err != nil {
		return err
	}
	res := &report.Result{RunInfo: report.RunInfo{Schema: report.SchemaVersion, Tool: report.Tool{Name: "objbench", Version: Version},
		RunID: runID, Started: time.Now()}, Machine: sysmon.ReadMachine(), Target: tgt.info, Spec: sp}
	res.Target.Namespace = "objbench/" + runID + "/"
	lv.start(res, note)
	if o.cpuProfile != "" {
		stopProfile, err := startCPUProfile(o.cpuProfile)
		if err != nil {
			return err
		}
		defer stopProfile()
	}
	stopNote := context.AfterFunc(ctx, func() {
		note("interrupt: finishing in-flight ops, then cleaning up (Ctrl-C again to quit at once)")
	})
	defer stopNote()
	watch := startWatch(ctx, res.Target, o.linkBps, lv.sample(), note)
	cfg := loadgen.Config{
		Store: tgt.store, Spec: sp, Namespace: res.Target.Namespace, Block: block, Seed: seed,
		Grace: o.grace, MaxErrors: o.maxErrors, NoCleanup: o.noCleanup, OpenBucket: tgt.bucketOpener(&o.target, maxConc),
		OnStep:      func(st workload.Stage, i int) { note("%s", describeStep(st, i)) },
		StepStarted: watch.stepStarted,
	}
	prog := withProgress(env, o.quiet, &cfg)
	lv.hook(&cfg)
	outcome, runErr := loadgen.Run(ctx, cfg)
	prog.done()
	res.Finished = time.Now()
	if outcome != nil {
		res.Steps, res.Interrupted, res.Aborted, res.CleanedUp = outcome.Steps, outcome.Interrupted, outcome.Aborted, outcome.CleanedUp
		res.AbortDetail = outcome.AbortDetail
	}
	watch.finish(res)
	lv.finish(res, runErr)
	if outcome == nil && runErr != nil {
		return runErr
	}
	return finish(env, o, res, out, runErr, note)
}

// finish writes the result and table and decides the outcome.
func finish(env Env, o *benchOptions, res *report.Result, out string, runErr error, note func(string, ...any)) error {
	if err := report.Write(out, res); err != nil {
		return fmt.Errorf("write result %s: %w", out, err)
	}
	if err := report.WriteTable(env.Stdout, res); err != nil {
		return err
	}
	if o.csv != "" {
		if err := writeCSVFile(o.csv, res); err != nil {
			return err
		}
	}
	if o.html != "" {
		if err := writeHTMLFile(o.html, res); err != nil {
			return err
		}
	}
	note("result: %s", out)
	if !res.CleanedUp && o.noCleanup {
		note("objects kept under %s (--no-cleanup)", res.Target.Namespace)
	}
	failed := strings.Join(res.FailedMainSteps(), ", ")
	switch {
	case runErr != nil:
		return runErr
	case failed != "":
		return fmt.Errorf("every op failed in %s (errors by class above)", failed)
	case res.Interrupted:
		return errInterrupted
	case res.Aborted == "max-errors":
		return fmt.Errorf("run stopped early: %s (--max-errors %d)", res.Aborted, o.maxErrors)
	case res.Aborted != "":
		return fmt.Errorf("run stopped early: %s", res.AbortDetail)
	}
	return nil
}

func writeCSVFile(path string, res *report.Result) error {
	err := atomicfile.Write(path, 0o644, func(w io.Writer) error { return report.WriteCSV(w, res) })
	if err != nil {
		return fmt.Errorf("--csv %s: %w", path, err)
	}
	return nil
}

func describeStep(st workload.Stage, i int) string {
	switch {
	case st.Kind == workload.KindDelay:
		return fmt.Sprintf("%s: waiting %v", st.Name, st.Delay)
	case st.Kind == workload.KindInit:
		return st.Name + ": creating the buckets that are missing"
	case st.Kind == workload.KindDispose:
		return st.Name + ": removing the buckets this run created"
	case st.Kind == workload.KindCleanup:
		return st.Name + ": deleting what this run wrote"
	case len(st.Streams) == 0:
		return st.Name
	}
	s := st.Streams[0]
	if st.Kind == workload.KindPrepare {
		if s.Objects.Index == nil {
			return fmt.Sprintf("prepare: writing %d objects of %s with %d workers", s.Objects.Count,
				report.Bytes(float64(s.Size)), s.MaxConcurrency())
		}
		return fmt.Sprintf("%s: writing objects %s of %s with %d workers", st.Name, s.Objects.Index, s.Sizes().SizeString(), s.MaxConcurrency())
	}
	line := fmt.Sprintf("%s: step %d/%d, %s with %d workers", st.Name, i+1, st.Steps(), s.Name, s.ConcurrencyAt(i))
	if r := s.At(i).Rate; r != nil && (s.Sweep == nil || len(s.Sweep.Rates) < 2) {
		line += " at " + r.String() // a swept rate is named by the step label
	}
	switch n := len(st.Streams) - 1; {
	case n == 1:
		line += " (and 1 more stream)"
	case n > 1:
		line += fmt.Sprintf(" (and %d more streams)", n)
	}
	if l := st.StepLabel(i); l != "" {
		line += ", " + l
	}
	return line
}

func notes(env Env, quiet bool) func(string, ...any) {
	return func(format string, a ...any) {
		if !quiet {
			fmt.Fprintf(env.Stderr, "objbench: "+format+"\n", a...)
		}
	}
}

func newRunID() string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

func randomSeed() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:]) | 1
}

// checkWritable fails before any work if the result cannot be written.
func checkWritable(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".objbench-check-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
