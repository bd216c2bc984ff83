package workload

import (
	"strconv"
	"strings"
	"time"
)

// StageKind says what a stage does.
type StageKind string

// The stage kinds. Init creates the buckets its streams name (only those
// missing); prepare writes each object of its streams' key spaces once;
// main runs the op mix; cleanup deletes objects the run wrote; dispose
// removes the buckets this run created; delay waits.
const (
	KindInit    StageKind = "init"
	KindPrepare StageKind = "prepare"
	KindMain    StageKind = "main"
	KindCleanup StageKind = "cleanup"
	KindDispose StageKind = "dispose"
	KindDelay   StageKind = "delay"
)

// Spec is a whole workload.
type Spec struct {
	Name string `json:"name,omitempty"`
	// Source says which file the spec came from and what of it objbench
	// could not honour; nil for specs built from flags.
	Source *Source `json:"source,omitempty"`
	// Storage is the target the file names; command-line flags override it.
	Storage *Storage `json:"storage,omitempty"`
	// ScaledBy is the factor counts and durations were multiplied by
	// (objbench run --scale), 0 when they were not.
	ScaledBy float64 `json:"scaled_by,omitempty"`
	// RuntimeCap is the longest a main stream or a delay runs (objbench
	// run --cap-runtime: a trial run of a long workload); 0: not capped.
	RuntimeCap time.Duration `json:"runtime_cap_ns,omitempty"`
	// Dataset names a data set kept in the store: the run writes into and
	// reads from DatasetNamespace(Dataset) instead of its own namespace,
	// skips cleanup and dispose, and reads of objects no stage of the run
	// writes find what earlier runs wrote there.
	Dataset string `json:"dataset,omitempty"`
	// BareKeys is COSBench's key layout (cosbench_keys.go): objects named
	// as COSBench names them, without the run's namespace.
	BareKeys bool    `json:"cosbench_keys,omitempty"`
	Stages   []Stage `json:"stages"`
	// Profile, in place of stages, names one of objbench's workload
	// profiles (a workload file's profile: block): the profile's command
	// makes the stages (objbench ai train, checkpoint, lake).
	Profile *Profile `json:"profile,omitempty"`
}

// Profile is a workload profile and its options, as its command takes
// them: Kind "ai train", "ai checkpoint" or "ai lake"; Options by flag
// name without the dashes ("model": "unet3d", "accelerators": "8").
type Profile struct {
	Kind    string            `json:"kind"`
	Options map[string]string `json:"options,omitempty"`
	Pos     Pos               `json:"-"`
}

// ProfileKinds are the profiles a workload file can name.
var ProfileKinds = []string{"ai train", "ai checkpoint", "ai lake"}

// DatasetNamespace is where data set name lives in every bucket.
func DatasetNamespace(name string) string { return "objbench/data/" + name + "/" }

// ValidDatasetName reports whether name can name a data set: 1 to 64
// letters, digits, '.', '_' or '-', not starting with '.'.
func ValidDatasetName(name string) bool {
	if name == "" || len(name) > 64 || name[0] == '.' {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// Source is the workload file a spec was decoded from.
type Source struct {
	File     string   `json:"file"`
	Format   string   `json:"format"` // "yaml" or "cosbench"
	Warnings []string `json:"warnings,omitempty"`
}

// Storage is where a workload file says to run. Credentials are kept for
// the run but never serialized: result files and plans must not hold them.
type Storage struct {
	Type       string        `json:"type"` // "s3"
	Endpoint   string        `json:"endpoint,omitempty"`
	Region     string        `json:"region,omitempty"`
	Addressing string        `json:"addressing,omitempty"` // "path", "virtual" or "" (auto)
	Timeout    time.Duration `json:"timeout_ns,omitempty"`
	AccessKey  string        `json:"-"`
	SecretKey  string        `json:"-"`
	// Credentials is true when the file holds keys (which are not recorded).
	Credentials bool `json:"credentials_in_file,omitempty"`
	// How connections are made (flags --keepalive, --max-conns-per-host,
	// --ca-bundle, --insecure, --tls-resumption override them).
	KeepAlive       *bool  `json:"keepalive,omitempty"` // nil: on
	MaxConnsPerHost int    `json:"max_conns_per_host,omitempty"`
	CABundle        string `json:"ca_bundle,omitempty"`
	Insecure        bool   `json:"insecure,omitempty"`
	NoTLSResumption bool   `json:"no_tls_resumption,omitempty"`
	Pos             Pos    `json:"-"`
}

// Stage is a set of streams that run together. With a sweep the stage runs
// once per value (a step each).
type Stage struct {
	Name    string    `json:"name"`
	Kind    StageKind `json:"kind"`
	Streams []Stream  `json:"streams"`
	// Delay is how long a delay stage waits.
	Delay time.Duration `json:"delay_ns,omitempty"`
	// OnError is the stage's failure policy; nil means continue (count
	// errors, never stop).
	OnError *FailurePolicy `json:"on_error,omitempty"`
	// Workstage is, for a stage of a COSBench workload, the <workstage>
	// it comes from: several stages may come from one (its closuredelay,
	// createContainer, works of several types), and COSBench's CSV keeps
	// them one stage.
	Workstage *Workstage `json:"workstage,omitempty"`
	Pos       Pos        `json:"-"`
}

// Workstage is a COSBench <workstage>: its place among them (from 1) and
// its name, as COSBench numbers and names its stages ("s3-main").
type Workstage struct {
	Index int    `json:"index"`
	Name  string `json:"name"`
}

// FailurePolicy stops the workflow when a stage's share of failed ops
// crosses MaxErrorRatio (COSBench's afr, as a fraction): the remaining
// stages are skipped, except cleanup and dispose. With AtEnd it is
// COSBench's rule instead: each stream is judged on its own ratio
// (Stream.MaxErrorRatio, else the stage's) once the stage is over; a
// stream over it fails the stage and the run, but the later stages run.
type FailurePolicy struct {
	MaxErrorRatio float64 `json:"max_error_ratio"`
	AtEnd         bool    `json:"at_end,omitempty"`
}

// OpWeight is one op of a mix with its relative weight.
type OpWeight struct {
	Op     string `json:"op"`
	Weight int    `json:"weight"`
	// Objects and SizeDist, when set, replace the stream's for this op
	// (COSBench gives each operation its own containers, objects, sizes).
	Objects  *KeySpace `json:"objects,omitempty"`
	SizeDist *Selector `json:"size_dist,omitempty"`
	// HashCheck is COSBench's hashCheck on this op alone (Data.HashCheck
	// is the stream's): a write appends the trailer, a read checks it.
	HashCheck bool `json:"hash_check,omitempty"`
	Pos       Pos  `json:"-"`
}

// Stream is one group of workers with one op mix.
type Stream struct {
	Name string     `json:"name"`
	Mix  []OpWeight `json:"mix"`
	// Percent says the weights are ratios that must sum to 100 (files);
	// flags give plain relative weights.
	Percent     bool   `json:"percent,omitempty"`
	Concurrency []int  `json:"concurrency"` // several values: a sweep
	Bounds      Bounds `json:"bounds"`
	// PerTarget replaces Bounds on the targets it names, by kind ("fs",
	// "s3") or URL: a run on several targets gives each its own counts
	// (Spec.ForTarget).
	PerTarget map[string]Bounds `json:"per_target,omitempty"`
	// Rampup and Rampdown are COSBench's: the stream runs its whole
	// Bounds.Duration, every worker from the start, but the ops that end
	// in its first Rampup and last Rampdown (whole seconds) are left out
	// of its result: counts, latencies and rates.
	Rampup   time.Duration `json:"rampup_ns,omitempty"`
	Rampdown time.Duration `json:"rampdown_ns,omitempty"`
	// MaxErrorRatio is the stream's own acceptable failure ratio under a
	// stage policy judged AtEnd (COSBench's afr of one work).
	MaxErrorRatio *float64 `json:"max_error_ratio,omitempty"`
	// Rate, when set, makes the stream open loop (main stages only): ops
	// start on its schedule and Concurrency is the pool of workers.
	Rate    *Rate    `json:"rate,omitempty"`
	Objects KeySpace `json:"objects"`
	// Size is the size of objects written; SizeDist, when set, replaces it
	// with a distribution.
	Size      int64     `json:"size_bytes"`
	SizeDist  *Selector `json:"size_dist,omitempty"`
	RangeSize int64     `json:"range_size_bytes,omitempty"` // GET reads this many bytes at a random offset
	// PartSize splits multipart uploads (0: DefaultPartSize).
	PartSize int64 `json:"part_size_bytes,omitempty"`
	// Fsync: file stores flush each file before its PUT returns;
	// SyncAtEnd: the file system is flushed once when the step's ops are
	// done, inside the step's time (FsyncMode names both).
	Fsync     bool `json:"fsync,omitempty"`
	SyncAtEnd bool `json:"sync_at_end,omitempty"`
	Data      Data `json:"data,omitzero"`
	// S3 are the stream's S3 request options (nil: plain requests).
	S3 *S3Options `json:"s3,omitempty"`
	// Sweep holds per-step values of fields other than concurrency.
	Sweep *Sweep `json:"sweep,omitempty"`
	// Storage overrides the workload's storage for this stream (COSBench
	// per-work <storage>); Driver is COSBench's driver attribute, recorded
	// for a later mapping to distributed workers.
	Storage *Storage `json:"storage,omitempty"`
	Driver  string   `json:"driver,omitempty"`
	Pos     Pos      `json:"-"`
}

// MaxConcurrency is the most workers one objbench process runs for a
// stream: beyond, memory and the scheduler, not the store, would set the
// pace; a larger run is split over processes (--worker).
const MaxConcurrency = 100_000

// DefaultPartSize is the multipart part size when a stream gives none.
const DefaultPartSize = 8 << 20

// Data says what bytes are written and whether reads check them.
type Data struct {
	// Compress > 1 makes the data this stream writes compressible about
	// that many times; 0 or 1 is incompressible (the default).
	Compress float64 `json:"compress,omitempty"`
	// Pattern, when set, is what the bytes look like instead:
	// PatternLetters is COSBench's data.
	Pattern string `json:"pattern,omitempty"`
	// Verify compares every byte read with what this run wrote for the key
	// (however the writer's data was made); a mismatch counts as a
	// checksum error.
	Verify bool `json:"verify,omitempty"`
	// HashCheck is COSBench's hashCheck: each object the stream writes of
	// more than HashTrailerLen bytes ends in a trailer of "!!!!", the MD5
	// of the bytes before it in lower-case hex, and "!!!!"; a verifying
	// read of objects so written, or not written by this run, checks
	// that trailer as COSBench's Reader does. OpWeight.HashCheck sets it
	// for one op of a mix.
	HashCheck bool `json:"hash_check,omitempty"`
}

// HashTrailerLen is the length of COSBench's hashCheck trailer: an MD5 in
// hex between two guards of "!!!!" (dev/cosbench-driver/src/com/intel/
// cosbench/driver/util/HashUtil.java, getHashLen).
const HashTrailerLen = 40

// PatternLetters is COSBench's data: each object repeats one 4 KiB piece
// of random lower-case letters, so it compresses.
const PatternLetters = "letters"

// Containers are COSBench's containers of a key space: Prefix + N + Suffix
// (cprefix, csuffix) for the numbers N of the containers selector, each
// mapped to a valid bucket name.
type Containers struct {
	Prefix  string   `json:"prefix,omitempty"`
	Suffix  string   `json:"suffix,omitempty"`
	Numbers Selector `json:"numbers"`
}

// Bounds end a stream at whichever limit comes first; zero means unset.
type Bounds struct {
	Duration time.Duration `json:"duration_ns,omitempty"`
	Ops      int64         `json:"ops,omitempty"`
	Bytes    int64         `json:"bytes,omitempty"`
	// PerWorker shares Ops and Bytes out among the stream's workers up
	// front, each its whole part (integer division), as COSBench's
	// WorkAgent does: a worker stops once it has done its ops, or once
	// the ops it finished moved its bytes (the op that crosses them
	// completes). Without it the workers draw on one shared count.
	PerWorker bool `json:"per_worker,omitempty"`
}

// WorkerPart is one worker's part of the bounds when PerWorker is set,
// with workers in all: Ops and Bytes divided, rounded down.
func (b Bounds) WorkerPart(workers int) (ops, bytes int64) {
	w := int64(max(workers, 1))
	return b.Ops / w, b.Bytes / w
}

// KeySpace is where a stream's objects live. With Index it names objects
// COSBench's way (Prefix + number + Suffix, numbers drawn from Index); without
// it, it is a pool of Count objects that main-stage PUTs add to and DELETEs
// take from.
type KeySpace struct {
	// Prefix is relative to the run's namespace, unless Existing is set.
	Prefix string `json:"prefix"`
	// Count is how many objects prepare writes (and reads pick from).
	Count int `json:"count"`
	// Existing means: use the objects already under Prefix (found by
	// listing, relative to the store root) instead of preparing any.
	// They are only ever read, never overwritten or deleted.
	Existing bool `json:"existing,omitempty"`
	// Source, when set, is a real corpus that prepare uploads instead of
	// generated objects: dir:PATH (every file of a tree) or git:PATH (every
	// blob of a repository); Count is then the most objects taken (0: all).
	// Keys are Prefix + the file's relative path or the blob's id.
	Source string `json:"source,omitempty"`
	// Buckets the objects live in; empty means the target's bucket.
	Buckets []string `json:"buckets,omitempty"`
	// Containers, for a key space of a COSBench workload, is what Buckets
	// were made from, so --scale can shrink them as it shrinks Index.
	Containers *Containers `json:"containers,omitempty"`
	// BucketPick chooses a bucket by position (1-based) for each op of a
	// main stage; nil picks uniformly. Prepare and cleanup use every bucket.
	BucketPick *Selector `json:"bucket_pick,omitempty"`
	Suffix     string    `json:"suffix,omitempty"`
	Index      *Selector `json:"index,omitempty"`
	// broken marks a key space a decoder could not read, so validation
	// does not pile consequences onto the error already reported.
	broken bool
}

// Name is the key (below the namespace) of object number n.
func (k KeySpace) Name(n int64) string {
	return k.Prefix + strconv.FormatInt(n, 10) + k.Suffix
}

// id identifies the key space's objects, regardless of which numbers a
// stream draws.
func (k KeySpace) id() string {
	mode := "pool"
	switch {
	case k.Existing:
		mode = "existing"
	case k.Index != nil:
		mode = "index"
	}
	return strings.Join(k.Buckets, ",") + "\x00" + k.Prefix + "\x00" + k.Suffix + "\x00" + mode
}

// Pos is where something was written in a workload file.
type Pos struct {
	File string
	Line int
}

func (p Pos) String() string {
	if p.File == "" {
		return ""
	}
	return p.File + ":" + strconv.Itoa(p.Line)
}

// Warning is something a file asks for that objbench does not (fully) do.
type Warning struct {
	Pos Pos
	Msg string
}

func (w Warning) String() string {
	if w.Pos.File == "" {
		return w.Msg
	}
	return w.Pos.String() + ": " + w.Msg
}
