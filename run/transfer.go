package run

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"time"

	"github.com/objbench/objbench/internal/cputime"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/sysmon"
	"github.com/objbench/objbench/transfer"
)

// TransferOptions shape a transfer run; the zero value runs the plan once
// with the machine watched.
type TransferOptions struct {
	RunID string // default: NewRunID()
	Tool  result.Tool
	// Source and Destination are the transfer's arguments, as given.
	Source, Destination string
	// Repeat moves the plan this many times, one step each (a download
	// to a directory replaces the files its first repetition wrote).
	Repeat int
	// NoWatch skips sampling the machine (no timeline, no verdict);
	// LinkSpeed is the network capacity in bits/s for the verdict.
	NoWatch   bool
	LinkSpeed float64
	// NoManifest skips an upload's manifest (transfer.WriteManifest).
	NoManifest bool
	// OnStep sees each repetition (0-based) as it starts.
	OnStep func(rep int)
	Note   func(format string, a ...any)
}

// transferSpec is what a transfer's result file keeps as its "workload".
type transferSpec struct {
	Transfer struct {
		Source          string `json:"source"`
		Destination     string `json:"destination"`
		Objects         int64  `json:"objects"`
		Bytes           int64  `json:"bytes"`
		Seed            uint64 `json:"seed,omitempty"`
		PartSize        int64  `json:"part_size"`
		PartConcurrency int    `json:"part_concurrency"`
		Workers         int    `json:"workers"`
		Retries         int    `json:"retries"`
		Checksum        string `json:"checksum,omitempty"`
		Repeat          int    `json:"repeat,omitempty"`
	} `json:"transfer"`
}

// Transfer moves plan to or from st (described by target) as a run: one
// main step per repetition whose stream holds the transfer's data
// requests per second (op PUT or GET), with the transfer's own figures
// and its verification in the step, and the machine watched and judged
// as for any run. The result comes back also when a repetition fails
// (with the error: the failed step is the last); only when it cannot
// start is it nil. An upload's verification failing is an error that
// wraps transfer.ErrVerify.
func Transfer(ctx context.Context, target result.Target, st storage.Store, plan *transfer.Plan, opts transfer.Options, o TransferOptions) (*result.Run, error) {
	if o.RunID == "" {
		o.RunID = NewRunID()
	}
	note := o.Note
	if note == nil {
		note = func(string, ...any) {}
	}
	opts = opts.Resolve(plan)
	spec, err := json.Marshal(specOf(plan, opts, o))
	if err != nil {
		return nil, err
	}
	res := &result.Run{RunInfo: result.RunInfo{Schema: result.Version, Tool: o.Tool, RunID: o.RunID, Started: time.Now()},
		Machine: sysmon.ReadMachine(), Target: target, Spec: spec, CleanedUp: true}
	var w *watch
	if !o.NoWatch {
		w = startWatch(ctx, target, o.LinkSpeed, nil, note)
	}
	var last *transfer.Result // what the last repetition wrote: the manifest's
	defer func() { _ = last.Close() }()
	for rep := range max(o.Repeat, 1) {
		if o.OnStep != nil {
			o.OnStep(rep)
		}
		if rep > 0 && plan.Download {
			opts.Force = true // the files are the first repetition's
		}
		step, tr, stepErr := transferStep(ctx, st, plan, opts, o, w)
		if o.Repeat > 1 {
			step.Repetition = rep + 1
		}
		if tr != nil {
			_ = last.Close()
			last = tr
		}
		res.Steps = append(res.Steps, step)
		if stepErr != nil {
			err = stepErr
			break
		}
	}
	if !plan.Download && !o.NoManifest && last != nil && len(res.Steps) > 0 {
		// Every repetition wrote the same keys: the last one's ETags are
		// what the store holds.
		key, merr := transfer.WriteManifest(context.WithoutCancel(ctx), st, plan, last, o.RunID)
		if merr != nil {
			err = errors.Join(err, merr)
		}
		if t := res.Steps[len(res.Steps)-1].Transfer; t != nil {
			t.Manifest = key
		}
	}
	res.Finished = time.Now()
	res.Interrupted = ctx.Err() != nil
	w.finish(res)
	return res, err
}

// ErrVerify marks a transfer whose destination does not hold what it sent.
var ErrVerify = errors.New("verification failed")

// transferStep runs the plan once and checks what it moved.
func transferStep(ctx context.Context, st storage.Store, plan *transfer.Plan, opts transfer.Options, o TransferOptions, w *watch) (result.Step, *transfer.Result, error) {
	w.stepStarted(time.Now())
	u0, s0 := cputime.Process()
	c0, counted := connStats(st)
	tr, runErr := transfer.Run(ctx, st, plan, opts)
	u1, s1 := cputime.Process()
	name := "upload"
	if plan.Download {
		name = "download"
	}
	step := result.Step{Stage: name, Kind: result.KindMain, CPUUser: u1 - u0, CPUSys: s1 - s0}
	if tr == nil {
		return step, nil, runErr
	}
	step.Start, step.Elapsed = tr.Start, tr.Wall
	if c1, ok := connStats(st); counted && ok {
		step.Connections = result.ConnectionsSince(c0, c1)
		step.Requests, step.ConnsDialed = step.Connections.Requests, step.Connections.Opened
	}
	stream := result.Stream{Name: name, Concurrency: opts.Workers * opts.PartConcurrency, StoppedBy: "all objects moved",
		Seconds: tr.Seconds, Phases: tr.Phases}
	if runErr != nil {
		stream.StoppedBy = "a failed object"
		if ctx.Err() != nil {
			stream.StoppedBy = "interrupt"
		}
	}
	// A transfer's number is its wall time: the window is all of it, on
	// ticks, so the table's rate is the bytes over the wall time.
	end := result.TickSeconds(int64(math.Ceil(tr.Wall.Seconds() * result.TicksPerSecond)))
	if err := stream.SetWindow(result.Window{Start: 0, End: end}); err != nil {
		return step, tr, errors.Join(runErr, err)
	}
	step.Streams = []result.Stream{stream}
	t := tr.Transfer // the figures the run measured
	t.Source, t.Destination = o.Source, o.Destination
	step.Transfer = &t
	err := runErr
	if err == nil {
		err = check(ctx, st, plan, tr, &t)
	}
	if err != nil {
		t.Error = err.Error()
	}
	return step, tr, err
}

// check verifies what a transfer moved: an upload's keys as the store
// lists them, a download's objects and bytes against its plan.
func check(ctx context.Context, st storage.Store, plan *transfer.Plan, tr *transfer.Result, t *result.Transfer) error {
	c := transfer.Check{Objects: tr.Objects, Bytes: tr.Bytes, WantObjects: plan.Objects(), WantBytes: plan.Bytes()}
	if !plan.Download {
		var err error
		if c, err = transfer.Verify(ctx, st, plan, tr.Written); err != nil {
			return errors.Join(errors.New("verify"), err)
		}
	}
	t.Check = &result.TransferCheck{Verified: c.OK(), Objects: c.Objects, Bytes: c.Bytes, WantObjects: c.WantObjects,
		WantBytes: c.WantBytes, Missing: c.Missing, WrongSize: c.WrongSize, Changed: c.Changed, Compared: c.Compared,
		Others: c.Others, OtherBytes: c.OtherBytes, Text: c.String()}
	if !c.OK() {
		return &verifyError{c.String()}
	}
	return nil
}

type verifyError struct{ text string }

func (e *verifyError) Error() string { return ErrVerify.Error() + ": " + e.text }
func (e *verifyError) Unwrap() error { return ErrVerify }

func specOf(plan *transfer.Plan, opts transfer.Options, o TransferOptions) transferSpec {
	var s transferSpec
	t := &s.Transfer
	t.Source, t.Destination, t.Objects, t.Bytes = o.Source, o.Destination, plan.Objects(), plan.Bytes()
	if !plan.Download {
		t.Seed = plan.Seed
	}
	t.PartSize, t.PartConcurrency, t.Workers, t.Retries = opts.PartSize, opts.PartConcurrency, opts.Workers, opts.Retries
	t.Checksum = string(opts.Checksum)
	if opts.ChecksumTrailer {
		t.Checksum += "/trailer"
	}
	if o.Repeat > 1 {
		t.Repeat = o.Repeat
	}
	return s
}

func connStats(st storage.Store) (storage.ConnStats, bool) {
	cc, ok := st.(storage.ConnCounter)
	if !ok {
		return storage.ConnStats{}, false
	}
	return cc.Connections(), true
}
