package run

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/objbench/objbench/distributed"
	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/payload"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/sysmon"
	"github.com/objbench/objbench/workload"
)

// Options shape one run; the zero value is a run with a random seed and
// run id, a watched machine, the load generator's default grace and
// cleanup, and no hooks.
type Options struct {
	RunID string // default: NewRunID()
	Seed  uint64 // payload seed; 0: random
	Tool  result.Tool
	// Grace, CleanupTimeout, MaxErrors, NoCleanup and OpenLoopHorizon are
	// loadgen.Config's.
	Grace, CleanupTimeout time.Duration
	MaxErrors             int64
	NoCleanup             bool
	OpenLoopHorizon       time.Duration
	// Repeat runs each main step this many times (loadgen.Config.Repeat).
	Repeat int
	// DeleteDataset runs the spec's cleanup stages on the data set the
	// spec names (Spec.Dataset) though the run wrote nothing: the explicit
	// deletion of a kept data set.
	DeleteDataset bool
	// MaxConns is the workers a bucket of the workload may serve at once.
	MaxConns int
	// NoWatch skips sampling the machine (no timeline, no verdict).
	NoWatch bool
	// LinkSpeed is the network capacity in bits/s for the verdict (0:
	// what the machine reports).
	LinkSpeed float64
	// Observer, if set, sees the run as it goes (the CLI's live view,
	// report/live, is one): each step, each final second of each stream,
	// each machine sample, and how the run ended.
	Observer Observer
	// OnStep and OnSecond see each step as it starts and each second of
	// each stream once it is final (loadgen.Config's hooks).
	OnStep   func(st workload.Stage, step int)
	OnSecond func(stream string, sec result.Second)
	// OnStepDone sees each step once it is recorded (not cleanup or
	// dispose): an AI profile's figures of the step are in it.
	OnStepDone func(step result.Step)
	// Note receives what the run has to say besides its result (the
	// machine cannot be watched...); nil: silence. Warn receives what no
	// quiet mode may hide (a worker of a split run died, a second process
	// claimed this one's rank); nil: Note.
	Note, Warn func(format string, a ...any)
	// Worker makes this process one worker of a run split across
	// processes (RunID must then be the same for all); Engine names what
	// launched it. The workers meet through the store before every step
	// (within RendezvousTimeout, default 2 min) and refuse to start when
	// their clocks disagree by more than MaxSkew (0: no limit).
	Worker            distributed.Worker
	Engine            string
	RendezvousTimeout time.Duration
	MaxSkew           time.Duration
	// OpLog, if set, receives every op (loadgen.Config.OpLog); the
	// caller closes it.
	OpLog loadgen.OpLogger
	// Replay replaces a stream of sp by a trace (loadgen.Config.Replay);
	// ReplayInfo, recorded in the result, says what was replayed.
	Replay     *loadgen.Replay
	ReplayInfo func() *result.Replay
	// Scripts drives the streams it names by scripts of their own
	// (loadgen.Config.Scripts: AI training, checkpoints, lakehouse scans).
	Scripts func(st workload.Stage, i int, sp workload.Stream) (loadgen.Script, error)
}

// Run runs sp on tgt and returns its result, also when it fails part way
// (with the error that stopped it) or is interrupted by ctx; only when it
// cannot start is the result nil.
func Run(ctx context.Context, sp workload.Spec, tgt *Target, o Options) (*result.Run, error) {
	note := o.Note
	if note == nil {
		note = func(string, ...any) {}
	}
	if o.RunID == "" {
		o.RunID = NewRunID()
	}
	if o.Seed == 0 && sp.Dataset != "" {
		// A data set's bytes are the same in every run that writes or
		// verifies it: the seed comes from its name.
		o.Seed = DatasetSeed(sp.Dataset)
	}
	if o.Seed == 0 && !o.Worker.Solo() {
		// Every worker of a split run writes the same bytes for a key, so
		// one worker's reads verify what another wrote.
		o.Seed = SeedOf(o.RunID)
	}
	if o.Seed == 0 {
		o.Seed = payload.RandomSeed()
	}
	spec, err := json.Marshal(sp)
	if err != nil {
		return nil, err
	}
	block, err := payload.NewBlock(payload.DefaultBlockSize, o.Seed, 0)
	if err != nil {
		return nil, err
	}
	res := &result.Run{RunInfo: result.RunInfo{Schema: result.Version, Tool: o.Tool, RunID: o.RunID, Started: time.Now()},
		Machine: sysmon.ReadMachine(), Target: tgt.Info, Spec: spec}
	res.Target.Namespace = "objbench/" + o.RunID + "/"
	if sp.Dataset != "" {
		res.Target.Namespace = workload.DatasetNamespace(sp.Dataset)
	}
	describeRequests(&res.Target, sp)
	view := o.Observer
	var onSample func(sysmon.Sample)
	if view != nil {
		onSample = view.Sample
	}
	var w *watch
	if !o.NoWatch {
		w = startWatch(ctx, res.Target, o.LinkSpeed, onSample, note)
	}
	warn := o.Warn
	if warn == nil {
		warn = note
	}
	meet, err := rendezvous(ctx, tgt, res, sp, o, note, warn)
	if err != nil {
		return failedToJoin(ctx, meet, w, res, o, err)
	}
	cfg := loadgen.Config{Store: tgt.Store, Spec: sp, Namespace: res.Target.Namespace, Block: block, Seed: o.Seed,
		Worker: o.Worker, BeforeStep: manifestFirst(bookkeeping(tgt.Store), sp, Manifest{RunID: o.RunID, Rank: o.Worker.Rank, Size: o.Worker.N(),
			Started: res.Started, Namespace: res.Target.Namespace, Spec: spec}, meet.beforeStep), Stopping: meet.stopping, Adopted: meet.adoptedRanks, Repeat: o.Repeat,
		Grace: o.Grace, CleanupTimeout: o.CleanupTimeout, MaxErrors: o.MaxErrors, NoCleanup: o.NoCleanup,
		Dataset: sp.Dataset != "" && !o.DeleteDataset, DeleteDataset: sp.Dataset != "" && o.DeleteDataset, BareKeys: sp.BareKeys,
		OpenLoopHorizon: o.OpenLoopHorizon, OpenBucket: tgt.BucketOpener(max(o.MaxConns, 1)),
		OnStep: o.OnStep, StepStarted: w.stepStarted, OnSecond: o.OnSecond, StepDone: o.OnStepDone, OpLog: o.OpLog, Replay: o.Replay, Scripts: o.Scripts}
	observe(&cfg, view)
	out, runErr := loadgen.Run(ctx, cfg)
	if out == nil {
		meet.stopping("failed")
		meet.leave(ctx)
		closeWatch(w, res)
		return nil, runErr
	}
	res.Steps, res.Interrupted, res.Aborted, res.CleanedUp = out.Steps, out.Interrupted, out.Aborted, out.CleanedUp
	res.AbortDetail, res.CleanupNote = out.AbortDetail, out.CleanupNote
	if runErr != nil {
		res.Failure = &result.Failure{Cause: runErr.Error(), Step: lastStep(out.Steps)}
	}
	meet.finish(ctx, res, tgt.Store)
	// The manifest stays only beside what a run left that someone must
	// still delete: objects of a run cut short, or kept by NoCleanup. A
	// workload without a cleanup stage that ran to its end leaves its
	// objects on purpose, and no manifest among them.
	ended := runErr == nil && !res.Interrupted && res.Aborted == ""
	if sp.Dataset == "" && (res.CleanedUp || (ended && !o.NoCleanup)) {
		dropManifests(ctx, bookkeeping(tgt.Store), res, meet.adoptedRanks())
	}
	res.Finished = time.Now()
	if o.ReplayInfo != nil {
		res.Replay = o.ReplayInfo()
	}
	w.finish(res)
	if view != nil {
		view.Finish(outcome(res, runErr))
	}
	return res, runErr
}

func closeWatch(w *watch, res *result.Run) { w.finish(res) }

// failedToJoin is the result of a worker that could not join the others:
// it says why, so that a merge never shows the worker as ended well. A
// second claimant of a rank gets no result: the rank's file is its
// holder's.
func failedToJoin(ctx context.Context, meet *meeting, w *watch, res *result.Run, o Options, err error) (*result.Run, error) {
	closeWatch(w, res)
	var dup *distributed.DuplicateError
	if errors.As(err, &dup) {
		return nil, err
	}
	meet.stopping("failed to join")
	meet.leave(ctx)
	res.Finished = time.Now()
	res.Failure = &result.Failure{Cause: err.Error(), Step: "starting"}
	if !o.Worker.Solo() && meet != nil {
		res.Failure.Step = "joining the other workers"
	}
	return res, err
}

// lastStep names the last step a run reached before cleanup ("main step
// 2"), "" when none ran.
func lastStep(steps []result.Step) string {
	for i := len(steps) - 1; i >= 0; i-- {
		if k := steps[i].Kind; k != result.KindCleanup && k != result.KindDispose {
			return fmt.Sprintf("%s step %d", steps[i].Stage, steps[i].Step+1)
		}
	}
	return ""
}

// Observer sees a run as it goes. Its methods are called from the run's
// goroutines (Second concurrently for several streams) and must return
// quickly.
type Observer interface {
	Step(st workload.Stage, step int) // before each step
	StepStarted(start time.Time)      // the instant the step's clock starts
	Second(stream string, sec result.Second)
	Sample(s sysmon.Sample) // each second of the machine's timeline
	Finish(outcome string)  // "completed", "interrupted", "failed: ..."
}

// StepObserver is an Observer that also sees each step once it is
// recorded (Options.OnStepDone): the live view shows an AI profile's
// figures of each step.
type StepObserver interface {
	StepDone(step result.Step)
}

// observe feeds v from the run's hooks, after the ones already set.
func observe(cfg *loadgen.Config, v Observer) {
	if v == nil {
		return
	}
	onStep, started, onSecond, done := cfg.OnStep, cfg.StepStarted, cfg.OnSecond, cfg.StepDone
	if sd, ok := v.(StepObserver); ok {
		cfg.StepDone = func(s result.Step) {
			if done != nil {
				done(s)
			}
			sd.StepDone(s)
		}
	}
	cfg.OnStep = func(st workload.Stage, i int) {
		if onStep != nil {
			onStep(st, i)
		}
		v.Step(st, i)
	}
	cfg.StepStarted = func(t time.Time) {
		if started != nil {
			started(t)
		}
		v.StepStarted(t)
	}
	cfg.OnSecond = func(stream string, s result.Second) {
		if onSecond != nil {
			onSecond(stream, s)
		}
		v.Second(stream, s)
	}
}

// outcome is how the run ended, in words, for the live view.
func outcome(res *result.Run, runErr error) string {
	switch {
	case runErr != nil:
		return "failed: " + runErr.Error()
	case res.Interrupted:
		return "interrupted"
	case res.Aborted != "":
		return "stopped early: " + res.AbortDetail
	}
	return "completed"
}

// SeedOf is the payload seed the workers of run id share when none is
// given: a hash of the id, never 0.
func SeedOf(id string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(id))
	return max(h.Sum64(), 1)
}

// DatasetSeed is the payload seed of data set name (FNV-1a of the name).
func DatasetSeed(name string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211
	}
	return max(h, 1)
}

// NewRunID is a run id that sorts by time: 20261124-153000-a1b2c3.
func NewRunID() string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}
