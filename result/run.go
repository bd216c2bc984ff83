package result

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strconv"
	"time"
)

// Version is the result file format. Readers accept every version up to
// it (Decode upgrades older ones) and refuse newer ones.
//
//	1: per-second records with bytes spread over the seconds an op covered
//	2: an op and its bytes count in the second it ended; edge seconds keep
//	   tick counts; open-loop worker counts; cleanup notes; the spec as the
//	   workload package encodes it
//	3: streams' outages: periods the store could not be reached at all
//	   (connections refused or reset), with the ops they lost; request
//	   phases and connections; repetitions
//	4: a step's transfer: a whole-object transfer's objects, wall time,
//	   object latency and verification (objbench transfer --out); a
//	   replay's sources and their latencies (objbench replay); the
//	   COSBench works that failed their afr (failed_works)
//	5: a stream's seconds are packed (seconds_packed: base64 of zstd
//	   frames of varint records, per-second histograms as bucket gaps and
//	   counts, not each deflated): files are half the size and merge
//	   reads them some 30 times faster
//	6: packed seconds' frames name their codec: huff0 (Huffman coding
//	   alone, which decodes twice as fast as zstd and packs these bytes as
//	   small), zstd or stored; the merge of 100 workers of an hour reads
//	   them in less CPU
//	7: per-second histograms in the split form (internal/resultpack/split.go): gaps and
//	   counts in runs of fixed width, so that a merge adds eight buckets
//	   at once; files as small as version 6's
//	8: a run's failure (its cause and the step it reached); a worker's
//	   refused second claimants of its rank, and the ranks it found dead
//	   and cleaned up for
//	9: a replay's pacing (loop, burst), the source's concurrency and
//	   span, and the requests held back for their key's order
//	10: a step's AI figures (objbench ai): training (per accelerator and
//	   epoch: computation, wall time, batch waits; a find-max step's
//	   rounds), a checkpoint's ranks, a lakehouse scan's queries
//	11: each stream's rates by COSBench's formula (cosbench)
//	12: the target's own process on this machine (a local server found by
//	   its listening socket): its pid and command in the timeline, its CPU
//	   in each sample, so the verdict tells it from other processes
//	13: the tool's commit, and whether its checkout had uncommitted changes
//	14: a knee search's curve, objective and knee (objbench saturate
//	   --out), its steps the run's
const Version = 14

// RunInfo identifies a run and says how it ended; a result file and its
// summary both begin with it.
type RunInfo struct {
	Schema      int       `json:"schema"`
	Tool        Tool      `json:"tool"`
	RunID       string    `json:"run_id"`
	Started     time.Time `json:"started"`
	Finished    time.Time `json:"finished"`
	Interrupted bool      `json:"interrupted"`
	Aborted     string    `json:"aborted,omitempty"`
	// Failure says why the run failed, when it did: the error that
	// stopped it and the step it had reached. A worker of a split run
	// records its own, so that a merge never shows it as ended well.
	Failure *Failure `json:"failure,omitempty"`
}

// Failure is why a run failed, and where.
type Failure struct {
	Cause string `json:"cause"`
	Step  string `json:"step,omitempty"` // the step it had reached ("" before the first)
}

// Run is one run's result file.
type Run struct {
	RunInfo
	AbortDetail string `json:"abort_detail,omitempty"`
	CleanedUp   bool   `json:"cleaned_up"`
	// CleanupNote says why a run is not cleaned up, or what was left.
	CleanupNote string  `json:"cleanup_note,omitempty"`
	Machine     Machine `json:"machine"`
	Target      Target  `json:"target"`
	// Spec is the workload that ran, as the workload package encodes it.
	Spec  json.RawMessage `json:"spec,omitempty"`
	Steps []Step          `json:"steps"`
	// System is the per-second system timeline and the verdict; absent
	// when the machine was not watched.
	System *System `json:"system,omitempty"`
	// Worker says this file is one worker's part of a run split across
	// processes; package merge combines the parts into one Run with
	// Workers set.
	Worker  *Worker  `json:"worker,omitempty"`
	Workers *Workers `json:"workers,omitempty"`
	// Replay is set when the run replayed a trace (objbench replay).
	Replay *Replay `json:"replay,omitempty"`
	// Saturation is set when the run was a knee search (objbench saturate).
	Saturation *Saturation `json:"saturation,omitempty"`
}

// Worker is one process of a run split across processes.
type Worker struct {
	Rank   int    `json:"rank"`
	Size   int    `json:"size"`
	Engine string `json:"engine,omitempty"` // what launched it: "Open MPI", "Slurm"...
	// ClockOffset is how far the store's clock was ahead of this
	// worker's (store = local + offset), known within ClockError; merge
	// puts every worker's seconds on the store's clock with it.
	ClockOffset time.Duration `json:"clock_offset_ns"`
	ClockError  time.Duration `json:"clock_error_ns"`
	// Refused are the hosts of processes that claimed this worker's rank
	// after it and were refused (a launcher's mistake: they ran nothing).
	Refused []string `json:"refused_claimants,omitempty"`
	// Gone are the ranks this worker found dead (no sign of life) at a
	// cleanup meeting; Adopted those whose objects it deleted for them.
	Gone    []int `json:"gone,omitempty"`
	Adopted []int `json:"adopted,omitempty"`
}

// Workers is a merged run's account of its parts.
type Workers struct {
	Size  int            `json:"size"`  // workers the run had
	Parts []WorkerResult `json:"parts"` // those merged, by rank
	// Missing are the ranks without a result; Failed those whose run
	// failed, was interrupted or ended short. A merge without all of
	// them is partial.
	Missing []int `json:"missing,omitempty"`
	Failed  []int `json:"failed,omitempty"`
}

// WorkerResult is one worker's own figures in a merged run, so that one
// slow client shows.
type WorkerResult struct {
	Worker
	Host    string    `json:"host"`
	File    string    `json:"file,omitempty"`
	Ops     int64     `json:"ops"`       // main steps, issued
	Errors  int64     `json:"errors"`    // main steps
	OpsPerS float64   `json:"ops_per_s"` // main steps, over their windows
	P99us   int64     `json:"p99_us"`    // main steps, all ops
	Verdict string    `json:"verdict,omitempty"`
	Ended   string    `json:"ended,omitempty"` // why its run ended, when not done
	Start   time.Time `json:"start"`
}

// Partial says "k/N" when a merged run lacks workers or holds failed
// ones, "" otherwise.
func (r *Run) Partial() string {
	if r.Workers == nil || (len(r.Workers.Missing) == 0 && len(r.Workers.Failed) == 0) {
		return ""
	}
	return strconv.Itoa(len(r.Workers.Parts)-len(r.Workers.Failed)) + "/" + strconv.Itoa(r.Workers.Size)
}

// Tool identifies the program that wrote the result.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Commit is the source revision the binary was built from, and
	// Modified says the checkout had uncommitted changes ("" and false:
	// built without version control information).
	Commit   string `json:"commit,omitempty"`
	Modified bool   `json:"modified,omitempty"`
}

// ToolFromBuild is name as the running binary's build information
// describes it: the main module's version (a release tag for go install,
// a pseudo-version of the commit for a build in a checkout, "(devel)"
// without version control) and the commit. version, when not "", replaces
// the module's (a version stamped at link time).
func ToolFromBuild(name, version string) Tool {
	t := Tool{Name: name, Version: version}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		if t.Version == "" {
			t.Version = "unknown"
		}
		return t
	}
	if t.Version == "" {
		t.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			t.Commit = s.Value
		case "vcs.modified":
			t.Modified = s.Value == "true"
		}
	}
	return t
}

// String is "v1.2.3 (commit 0123456789ab)", with "+ uncommitted changes"
// when the checkout had some, or "(devel) (commit unknown)".
func (t Tool) String() string {
	c := "commit unknown: built without version control information"
	if t.Commit != "" {
		c = "commit " + t.Commit[:min(12, len(t.Commit))]
		if t.Modified {
			c += " + uncommitted changes"
		}
	}
	return t.Version + " (" + c + ")"
}

// Target describes what was measured. It never holds credentials.
type Target struct {
	Kind      string `json:"kind"` // "s3" or "fs"
	Endpoint  string `json:"endpoint,omitempty"`
	Bucket    string `json:"bucket,omitempty"`
	Region    string `json:"region,omitempty"`
	PathStyle bool   `json:"path_style,omitempty"`
	Embedded  bool   `json:"embedded,omitempty"` // objbench's own in-process server
	Root      string `json:"root,omitempty"`     // file system directory
	// How requests were signed and checksummed (S3).
	Signing    string `json:"signing,omitempty"`
	Checksums  string `json:"checksums,omitempty"`
	HTTPClient string `json:"http_client,omitempty"` // "direct" or "std"
	Namespace  string `json:"namespace"`
	// How an S3 store's requests went (s3.Store.Options): "path" or
	// "virtual" addressing as used, how TLS certificates were checked,
	// whether connections were kept and TLS sessions resumed, the cap on
	// connections to the host.
	Addressing      string `json:"addressing,omitempty"`
	TLS             string `json:"tls,omitempty"`
	KeepAlive       *bool  `json:"keepalive,omitempty"`
	TLSResumption   *bool  `json:"tls_resumption,omitempty"`
	MaxConnsPerHost int    `json:"max_conns_per_host,omitempty"`
	// Requests says, per stream with S3 options, what its requests
	// carried ("main: crc32c trailer (aws-chunked, ...), SSE aws:kms").
	Requests []string `json:"requests,omitempty"`
}

// Label names a result's target for people: file:///DIR, s3://BUCKET at
// its endpoint, or the embedded server.
func (t Target) Label() string {
	switch {
	case t.Kind == "fs":
		return "file://" + t.Root
	case t.Embedded:
		return "embedded s3://" + t.Bucket
	case t.Endpoint != "":
		return "s3://" + t.Bucket + " at " + t.Endpoint
	}
	return "s3://" + t.Bucket
}

// Describe says what and where the target is, as reports show it: "s3
// http://10.0.0.5:9000, bucket b", "fs /mnt/nvme", "s3 (embedded server),
// bucket objbench".
func (t Target) Describe() string {
	s := t.Kind
	switch {
	case t.Embedded:
		s += " (embedded server)"
	case t.Endpoint != "":
		s += " " + t.Endpoint
	case t.Root != "":
		s += " " + t.Root
	}
	if t.Bucket != "" {
		s += ", bucket " + t.Bucket
	}
	return s
}

// FailedMainSteps names the main steps in which ops were issued and none
// succeeded: a run with such a step measured nothing. Conditions that did
// not hold and objects not modified are answers (a create-only PUT of
// keys that exist measures the 412s), not failures.
func (r *Run) FailedMainSteps() []string {
	var names []string
	for _, s := range r.Steps {
		var ops, ok int64
		for _, st := range s.Streams {
			for _, t := range st.Totals {
				ops, ok = ops+t.Ops, ok+t.OK+t.answered()
			}
		}
		if s.Kind == KindMain && ops > 0 && ok == 0 {
			names = append(names, fmt.Sprintf("%s step %d", s.Stage, s.Step+1))
		}
	}
	return names
}

// FailedWorks lists the works that failed their acceptable failure ratio,
// each as "stage: why".
func (r *Run) FailedWorks() []string {
	var out []string
	for _, s := range r.Steps {
		for _, f := range s.FailedWorks {
			out = append(out, s.Stage+": "+f)
		}
	}
	return out
}

// OpTotals sums op's totals over the steps of stages of kind: ops issued,
// ops that succeeded and bytes moved.
func (r *Run) OpTotals(kind, op string) (ops, ok, bytes int64) {
	for _, st := range r.Steps {
		if st.Kind != kind {
			continue
		}
		for _, s := range st.Streams {
			for _, t := range s.Totals {
				if t.Op == op {
					ops, ok, bytes = ops+t.Ops, ok+t.OK, bytes+t.Bytes
				}
			}
		}
	}
	return ops, ok, bytes
}
