package cli

import (
	"context"
	"fmt"

	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/objbench/objbench/corpus"
	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/workload"
)

// fileOptions are the run command's flags beyond the shared ones.
type fileOptions struct {
	dryRun         bool
	scale          float64
	capRuntime     time.Duration
	incompressible bool
	dataset        string
	cosbenchKeys   bool
}

func (f *fileOptions) register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.dryRun, "dry-run", false, "print the resolved plan (stages, streams, expected ops and bytes, where objects go) and touch no storage")
	fs.BoolVar(&f.incompressible, "incompressible", false, "COSBench workloads: write random bytes instead of COSBench's data (a 4 KiB piece of random letters repeated per object, which compresses)")
	fs.StringVar(&f.dataset, "dataset", "", "write into and read from the data set NAME, kept in the store (objbench/data/NAME/ in each bucket) instead of this run's namespace: "+
		"cleanup and dispose are skipped, and reads of objects the workload does not write find what earlier runs wrote (objbench dataset rm NAME deletes it)")
	fs.BoolVar(&f.cosbenchKeys, "cosbench-keys", false, "COSBench workloads: name objects as COSBench does (container = bucket, object name = key, no objbench/RUN-ID/ prefix), "+
		"to read data COSBench or anyone prepared and to write data COSBench reads; the run refuses to write over objects already there, and deletes only what it wrote")
	fs.Float64Var(&f.scale, "scale", 1, "multiply object counts, COSBench's containers, op and byte limits and durations by this (e.g. 0.01 for a quick check in CI); sizes and concurrency stay")
	fs.DurationVar(&f.capRuntime, "cap-runtime", 0, "a trial run of a workload file: every main stream runs at most this long (rampup and rampdown shrink with it) and every delay waits at most this long; prepare and cleanup do all their work")
}

// shapeFlags are the flags that describe a workload; with a workload file
// the file does, so giving one is a mistake worth stopping for.
var shapeFlags = []string{"size", "concurrency", "duration", "ops", "bytes", "objects", "prefix", "no-prepare", "range-size", "mix", "from-dir", "from-git", "max-objects",
	"rate", "arrival", "ramp", "max-workers", "checksum", "checksum-trailer", "verify-checksum", "if-none-match", "conditional-get", "sse", "tag", "meta",
	"storage-class", "presign", "versioned", "batch-size", "batch-cleanup"}

// runWorkload runs `objbench run [FILE]`: the file's workload, or the
// default mix built from flags, scaled and run or only planned.
func runWorkload(ctx context.Context, env Env, o *benchOptions, f *fileOptions, flags *pflag.FlagSet, args []string) error {
	if !(f.scale > 0) || f.scale > 1e6 {
		return usagef("--scale %v: want a factor above 0, like 0.01", f.scale)
	}
	if f.capRuntime < 0 {
		return usagef("--cap-runtime %v: want a duration above 0, like 10s", f.capRuntime)
	}
	switch {
	case f.cosbenchKeys && len(args) == 0:
		return usagef("--cosbench-keys: COSBench's key layout is for COSBench workload files")
	case f.cosbenchKeys && f.dataset != "":
		return usagef("--cosbench-keys and --dataset exclude each other: a data set lives under objbench/data/NAME/")
	case f.cosbenchKeys && o.dist.worker != "":
		return usagef("--cosbench-keys runs in one process: it cannot be split over --worker processes")
	}
	if f.dataset != "" && !workload.ValidDatasetName(f.dataset) {
		return usagef("--dataset %q: want 1 to 64 letters, digits, '.', '_' or '-'", f.dataset)
	}
	var sp workload.Spec
	if len(args) == 0 {
		p, err := o.parse("run")
		if err != nil {
			return err
		}
		sp = buildSpec("run", o, p)
		sp.Dataset = f.dataset
	} else {
		var err error
		if sp, err = loadWorkload(env, o, flags, args[0], !f.dryRun, workload.DecodeOptions{Dataset: f.dataset, BareKeys: f.cosbenchKeys}); err != nil {
			return err
		}
		if sp.Profile != nil {
			return runProfile(ctx, env, o, f, sp)
		}
	}
	if f.scale != 1 {
		sp = sp.Scale(f.scale)
	}
	if sp.BareKeys && !f.dryRun {
		fmt.Fprintf(env.Stderr, "objbench: %s\n", workload.BareKeysNote)
	}
	if f.capRuntime > 0 {
		sp = sp.CapRuntime(f.capRuntime)
		if !f.dryRun {
			fmt.Fprintf(env.Stderr, "objbench: warning: a trial run (--cap-runtime %v): every main stream runs at most %v; its numbers are not the workload's\n", f.capRuntime, f.capRuntime)
		}
	}
	if f.incompressible {
		sp = sp.Incompressible()
	}
	if f.dryRun {
		if errs := sp.Validate(); len(errs) > 0 {
			return inputError{joinLines(errs)}
		}
		return writeDryRun(env, o, sp)
	}
	return runBench(ctx, env, o, sp)
}

// loadWorkload reads and checks a workload file and lets the file's
// storage fill the target flags the user left unset.
func loadWorkload(env Env, o *benchOptions, flags *pflag.FlagSet, path string, warn bool, do workload.DecodeOptions) (workload.Spec, error) {
	for _, name := range shapeFlags {
		if flags.Changed(name) {
			return workload.Spec{}, usagef("--%s cannot be combined with a workload file: the file says what to run (edit it, or use --scale or --cap-runtime)", name)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return workload.Spec{}, inputf("read workload: %v", err)
	}
	// A target on the command line lets a COSBench workload for another
	// storage type (swift, mock...) run there.
	named := o.target.endpoint != "" || o.target.bucket != "" || o.target.target != ""
	do.Target = named
	sp, warns, err := workload.DecodeWith(path, data, do)
	if err != nil {
		return workload.Spec{}, inputError{err}
	}
	if warn {
		for _, w := range warns {
			fmt.Fprintf(env.Stderr, "objbench: warning: %s\n", w)
		}
	}
	p, err := o.parse("run") // the flags that still apply
	if err != nil {
		return workload.Spec{}, err
	}
	if flags.Changed("fsync") { // the same file, on stable storage or not
		sp = sp.WithFsync(p.fsync)
	}
	o.target.applyStorage(sp.Storage, flags)
	if o.target.target == "" && o.target.bucket == "" && o.target.endpoint != "" && !usesTargetBucket(sp) {
		// Every stream names its buckets: the first one stands in as the
		// target's, unchecked, since an init stage may create it.
		o.target.bucket, o.target.lazyBucket = firstBucket(sp), true
	}
	return sp, nil
}

// applyStorage fills what the flags left unset from a file's storage. The
// file's keys go only with the file's own endpoint: credentials for one
// cluster are never sent to another.
func (t *targetOptions) applyStorage(st *workload.Storage, flags *pflag.FlagSet) {
	if st == nil {
		return
	}
	if t.endpoint == "" && t.target == "" && st.Endpoint != "" {
		t.endpoint, t.fromFile = st.Endpoint, true
		if t.profile == "" {
			t.accessKey, t.secretKey = st.AccessKey, st.SecretKey
		}
	}
	if t.region == "" {
		t.region = st.Region
	}
	if !flags.Changed("addressing") && st.Addressing != "" {
		t.addressing = st.Addressing
	}
	if !flags.Changed("request-timeout") && st.Timeout > 0 {
		t.timeout = st.Timeout
	}
	t.applyConnections(st, flags)
}

// usesTargetBucket reports whether some stream works on objects without
// naming a bucket (and so needs the target's).
func usesTargetBucket(sp workload.Spec) bool {
	for _, st := range sp.Stages {
		for _, s := range st.Streams {
			switch st.Kind {
			case workload.KindPrepare, workload.KindCleanup:
				if len(s.Objects.Buckets) == 0 {
					return true
				}
			case workload.KindMain:
				for _, m := range s.Mix {
					if len(s.OpObjects(m).Buckets) == 0 {
						return true
					}
				}
			}
		}
	}
	return false
}

func firstBucket(sp workload.Spec) string {
	for _, st := range sp.Stages {
		if b := sp.Buckets(st); len(b) > 0 {
			return b[0]
		}
	}
	return ""
}

// writeDryRun prints where the run would go and its plan; with --worker,
// this worker's share of it.
func writeDryRun(env Env, o *benchOptions, sp workload.Spec) error {
	w := env.Stdout
	wk, _, _, err := o.dist.resolveForPlan(env)
	if err != nil {
		return err
	}
	var shares []loadgen.Share
	if !wk.Solo() {
		if shares, err = loadgen.Split(sp, wk); err != nil {
			return checkSplit(sp, wk)
		}
	}
	fmt.Fprintln(w, "dry run: nothing is sent to any store")
	fmt.Fprintf(w, "target: %s\n", o.target.describe())
	if c := o.target.describeConnections(); c != "" {
		fmt.Fprintf(w, "connections: %s\n", c)
	}
	workload.WriteDriverRanks(w, sp)
	corpora, err := measureCorpora(context.Background(), sp)
	if err != nil {
		return err
	}
	if err := workload.WritePlanWith(w, sp, corpora); err != nil {
		return err
	}
	if !wk.Solo() {
		loadgen.WriteShares(w, wk, shares)
	}
	return nil
}

// measureCorpora lists every corpus the workload uploads (names and
// sizes: nothing is read), so a dry run states their real counts and
// bytes.
func measureCorpora(ctx context.Context, sp workload.Spec) (map[string]workload.CorpusFacts, error) {
	out := map[string]workload.CorpusFacts{}
	for _, st := range sp.Stages {
		for _, s := range st.Streams {
			ks := s.Objects
			if ks.Source == "" {
				continue
			}
			if _, done := out[workload.CorpusKey(ks)]; done {
				continue
			}
			c, err := corpus.Open(ctx, ks.Source, ks.Count)
			if err != nil {
				return nil, inputf("%v", err)
			}
			st := c.Stats()
			f := workload.CorpusFacts{Objects: st.Objects, Bytes: st.Bytes, Min: st.Min, Max: st.Max}
			_ = c.Close()
			out[workload.CorpusKey(ks)] = f
		}
	}
	return out, nil
}

// describe says which target the options name, without opening it.
func (t *targetOptions) describe() string {
	switch {
	case len(t.targets) > 1:
		return strings.Join(t.targets, ", then ") + " (one run each, then compared)"
	case t.target != "":
		return t.target
	case t.endpoint == "" && t.bucket == "":
		return "the embedded S3 server (no endpoint given)"
	}
	where := t.endpoint
	if where == "" {
		where = "AWS S3"
	}
	from := ""
	if t.fromFile {
		from = " (from the workload file)"
	}
	bucket := t.bucket
	if t.lazyBucket || bucket == "" {
		bucket = "(the buckets the workload names)"
	}
	return fmt.Sprintf("%s%s, bucket %s", where, from, bucket)
}

// joinLines joins errors one per line.
func joinLines(errs []error) error {
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return fmt.Errorf("%s", strings.Join(msgs, "\n"))
}
