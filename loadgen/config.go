package loadgen

import (
	"context"
	"time"

	"github.com/objbench/objbench/distributed"
	"github.com/objbench/objbench/payload"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/workload"
)

// DefaultGrace is how long in-flight ops may finish after a stream stops
// issuing, unless Config.Grace says otherwise.
const DefaultGrace = 10 * time.Second

// Config is one run.
type Config struct {
	Store storage.Store
	Spec  workload.Spec
	// Namespace prefixes every key the run writes ("objbench/<run-id>/");
	// cleanup deletes only what it lists under it.
	Namespace string
	Block     *payload.Block
	Seed      uint64
	// Grace is how long in-flight ops may run after a stream stops issuing
	// (deadline or interrupt) before they are cancelled.
	Grace time.Duration
	// CleanupTimeout bounds cleanup, which still runs after an interrupt:
	// then in-flight ops get Grace, and cleanup and dispose another Grace,
	// after which they are cut short (what is left is noted).
	CleanupTimeout time.Duration
	// MaxErrors stops the run when this many ops have failed (0: never).
	MaxErrors int64
	// NoCleanup skips cleanup stages, leaving the objects for a later run.
	NoCleanup bool
	// Dataset makes the namespace a data set kept across runs (Spec.Dataset):
	// cleanup and dispose stages do not run, and a key pool no stage of
	// this run prepares is filled by listing what the data set holds.
	// DeleteDataset instead runs the cleanup stages though this run wrote
	// nothing: they delete the data set's objects (objbench dataset rm).
	Dataset, DeleteDataset bool
	// BareKeys is COSBench's key layout (Spec.BareKeys, barekeys.go): the
	// workload's numbered objects are named without Namespace (which
	// still holds what else the run keeps: its workers' markers), and the
	// run's own record decides what it may overwrite and delete. One
	// process only.
	BareKeys bool
	// Worker is this process's part of a run split across processes
	// (rank r of N): it runs its share of every stream's workers, rate
	// and bounds, writes and deletes only keys of its own, and prepares
	// its part of each key space; the zero value runs everything.
	Worker distributed.Worker
	// BeforeStep, if set, is called before each step (of every stage,
	// cleanup and dispose included) and may block, to start the step with
	// the other workers; an error stops the run (cleanup still runs).
	BeforeStep func(ctx context.Context, st workload.Stage, step int) error
	// Stopping, if set, is called once when the run will start no more
	// steps but cleanup and dispose (a step failed, the run was aborted
	// or interrupted), with a word or two of why: the other workers of a
	// split run then stop waiting for this one.
	Stopping func(why string)
	// Adopted, if set, is asked at each cleanup and dispose step for the
	// ranks (of a split run) whose objects this worker deletes besides
	// its own: those of workers that died. Rank 0's buckets are disposed
	// of by whoever adopts it.
	Adopted func() []int
	// OpenLoopHorizon is how long an op may take (the request timeout):
	// an open-loop stream without max_workers grows to its peak rate times
	// this many workers (WorkerCap). 0: DefaultOpenLoopHorizon.
	OpenLoopHorizon time.Duration
	// Repeat runs each main stage's sweep this many times over (each
	// step's result numbered by its Repetition); 0 or 1: once.
	Repeat int
	// OnStep, if set, is called before each step with its stage and index.
	OnStep func(stage workload.Stage, step int)
	// OpenBucket opens a store on another bucket, for key spaces that name
	// buckets: of the target, or of st when a stream has its own storage
	// (COSBench's per-work <storage>). The run opens each bucket once and
	// never closes the stores: the caller owns them. nil: a workload that
	// names buckets fails.
	OpenBucket func(ctx context.Context, st *workload.Storage, bucket string) (storage.Store, error)
	// StepStarted, if set, is called with the instant each step's clock
	// starts (second 0 of its records), so what is measured beside the run
	// (the system sampler) can share the step's seconds.
	StepStarted func(start time.Time)
	// StepDone, if set, is called with each step of a stage that is not
	// cleanup or dispose once it is recorded (a script's figures in it).
	StepDone func(step result.Step)
	// OnSecond, if set, is called with each second of each stream once it
	// is final, while the step runs (for a live progress display), and
	// with the seconds that become final when the stream stops: every
	// second once, in order. It is called from the streams' goroutines,
	// concurrently for several streams, and must return quickly.
	OnSecond func(stream string, sec result.Second)
	// OpLog, if set, receives every op the run issues (--op-log).
	OpLog OpLogger
	// Replay, if set, replaces one stream of the workload by a trace.
	Replay *Replay
	// Scripts, if set, gives the script that drives stream sp of stage
	// st at step i (script.go), or nil for a stream run as its spec says.
	// It is asked once per stream and step, before the step starts.
	Scripts func(st workload.Stage, i int, sp workload.Stream) (Script, error)
}

// Outcome is what a run did.
type Outcome struct {
	Steps       []result.Step
	Interrupted bool
	Aborted     string // "max-errors" or "error-ratio"
	AbortDetail string
	CleanedUp   bool
	// CleanupNote says what cleanup or dispose could not remove, and why.
	CleanupNote string
}
