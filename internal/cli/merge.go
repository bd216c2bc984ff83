package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/objbench/objbench/merge"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/run"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/units"
)

type mergeOptions struct {
	target     targetOptions
	out        string
	csv, html  string
	requireAll bool // deprecated: the default
	allowPart  bool
	clean      bool
	quiet      bool
	memLimit   string
}

func newMergeCommand(env Env) *cobra.Command {
	o := &mergeOptions{}
	cmd := &cobra.Command{
		Use:   "merge DIR | s3://BUCKET/PREFIX/ | RESULT.json...",
		Short: "Merge the result files of a run's workers into one result, exactly",
		Long: `Merge the result files that the workers of one run wrote (objbench run or
an op command with --worker, launched by mpirun, srun, a Kubernetes Indexed
Job or a loop over ssh) into one result file, as if one process had run the
whole: per-second records are put on the store's clock (each worker's
measured offset applied) and summed, HDR histograms merged, the window is
the part every worker measured, and every rate and percentile is computed
again from the merged records, never averaged.

A missing worker, or one whose run failed or was cut short, makes the
result "partial k/N": the merged file is still written, its report, CSV
and HTML page say PARTIAL in their first lines, and merge exits 1 so that
a script notices; --allow-partial accepts it (exit 0). The merged file is
an ordinary result file: report, compare, report --html and merge itself
read it.

Result files of version 5 keep their per-second records packed until the
merge reads them, every file side by side in the order of the merged
seconds: memory holds the files' packed records and a few merged seconds
being summed, not every file's records unpacked. Older files are read
whole. --memory-limit is a soft limit for the Go runtime: the garbage
collector runs only as the merge's memory nears it (and works harder
there; a merge that needs more still runs). With 0, it runs as usual.
bench/merge.sh measures a 100-worker hour.`,
		Example: `  objbench merge objbench-results/RUN-ID/ -o merged.json
  objbench merge s3://results/runs/RUN-ID/ --endpoint-url http://10.0.0.5:9000 -o merged.json
  objbench merge worker-0.json worker-1.json --allow-partial   # worker 2 died: merge what there is
  objbench merge res/bench-1/ --clean   # and delete what the run left in its bucket`,
		Args: positional(1, -1, "the workers' results: a directory, s3://BUCKET/PREFIX/ or result files"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMerge(cmd.Context(), env, o, args)
		},
	}
	f := cmd.Flags()
	o.target.register(f)
	f.StringVarP(&o.out, "out", "o", "", "merged result file (default objbench-results/RUN-ID-merged.json)")
	f.StringVar(&o.csv, "csv", "", "also write the merged table as CSV")
	f.StringVar(&o.html, "html", "", "also write the merged report as an HTML page")
	f.BoolVar(&o.allowPart, "allow-partial", false, "exit 0 though workers are missing or failed (the merged result still says PARTIAL)")
	f.BoolVar(&o.requireAll, "require-all", false, "fail (exit 1) unless every worker's result is there and ended well: the default now")
	_ = f.MarkDeprecated("require-all", "it is the default; --allow-partial accepts a partial merge")
	f.BoolVar(&o.clean, "clean", false, "when the run left objects (a worker died, --no-cleanup), delete them as objbench clean --run RUN-ID does, "+
		"in the store the result names (credentials from the target flags and the environment)")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "print only the latency/throughput table")
	f.StringVar(&o.memLimit, "memory-limit", "1GiB", "soft limit of the merge's memory (0: none)")
	return cmd
}

func runMerge(ctx context.Context, env Env, o *mergeOptions, args []string) error {
	limit, err := units.ParseSize(o.memLimit)
	if err != nil {
		return usagef("--memory-limit: %v", err)
	}
	if limit > 0 {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(limit))
		// A merge reads its files frame by frame and allocates little
		// (about 100 MB for 100 workers of an hour): the collector runs
		// only as the heap nears the limit, not a dozen times while the
		// files are read (a twentieth of that merge's wall time).
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
	}
	if err := checkOutputs(output{flag: "--out", path: o.out}, output{flag: "--csv", path: o.csv}, output{flag: "--html", path: o.html}); err != nil {
		return err
	}
	srcs, err := resultSources(ctx, env, o, args)
	if err != nil {
		return err
	}
	merged, err := merge.Sources(ctx, srcs, runtime.GOMAXPROCS(0))
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return inputError{err}
	}
	out := o.out
	if out == "" {
		out = filepath.Join("objbench-results", merged.RunID+"-merged.json")
	}
	bo := &benchOptions{csv: o.csv, html: o.html, quiet: o.quiet}
	// finish writes the merged file.
	if err := finish(env, bo, merged, out, nil, notes(env, o.quiet)); err != nil {
		return err
	}
	if o.clean && !merged.CleanedUp {
		if err := cleanMerged(ctx, env, o, merged); err != nil {
			return err
		}
	}
	if p := merged.Partial(); p != "" && !o.allowPart {
		return fmt.Errorf("partial result %s written to %s: missing workers %v, failed %v (with --allow-partial a partial merge exits 0)", p, out, merged.Workers.Missing, merged.Workers.Failed)
	}
	return nil
}

// resultSources are the inputs: directories are walked for .json files,
// s3://BUCKET/PREFIX/ is listed (and its objects downloaded) through the
// target flags' endpoint and credentials.
func resultSources(ctx context.Context, env Env, o *mergeOptions, args []string) ([]merge.Source, error) {
	var srcs []merge.Source
	for _, a := range args {
		switch st, err := os.Stat(a); {
		case strings.HasPrefix(a, "s3://"):
			objs, err := bucketResults(ctx, env, o, a)
			if err != nil {
				return nil, err
			}
			for _, ob := range objs {
				srcs = append(srcs, merge.Source{Name: ob.name, Read: ob.read})
			}
		case err != nil:
			return nil, inputf("%v", err)
		case st.IsDir():
			var files []string
			_ = filepath.WalkDir(a, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") {
					files = append(files, p)
				}
				return nil
			})
			if len(files) == 0 {
				return nil, inputf("%s holds no .json result files", a)
			}
			sort.Strings(files)
			for _, f := range files {
				srcs = append(srcs, merge.FileSource(f))
			}
		default:
			srcs = append(srcs, merge.FileSource(a))
		}
	}
	return srcs, nil
}

type bucketObject struct {
	name string
	read func() ([]byte, error)
}

// bucketResults downloads the .json results under an s3:// prefix.
func bucketResults(ctx context.Context, env Env, o *mergeOptions, where string) ([]bucketObject, error) {
	bucket, prefix, _ := strings.Cut(strings.TrimPrefix(where, "s3://"), "/")
	if bucket == "" {
		return nil, usagef("bad %q: want s3://BUCKET/PREFIX/", where)
	}
	t := o.target
	t.bucket = bucket
	tgt, err := t.open(ctx, env, 8, notes(env, true))
	if err != nil {
		return nil, err
	}
	defer func() { _ = tgt.Close(context.WithoutCancel(ctx)) }()
	var keys []string
	err = storage.ListUnder(ctx, tgt.Store, prefix, func(info storage.ObjectInfo) error {
		if strings.HasSuffix(info.Key, ".json") {
			keys = append(keys, info.Key)
		}
		return nil
	})
	if err == nil && len(keys) == 0 {
		err = inputf("no .json result files under %s", where)
	}
	if err != nil {
		return nil, err
	}
	objs := make([]bucketObject, len(keys))
	var g errgroup.Group
	g.SetLimit(8)
	for i, key := range keys {
		g.Go(func() error {
			var buf bytes.Buffer
			if _, err := tgt.Store.Get(ctx, key, storage.GetOptions{}, &buf); err != nil {
				return fmt.Errorf("s3://%s/%s: %w", bucket, key, err)
			}
			b := buf.Bytes()
			objs[i] = bucketObject{name: "s3://" + bucket + "/" + key, read: func() ([]byte, error) { return b, nil }}
			return nil
		})
	}
	return objs, g.Wait()
}

// cleanMerged deletes what a merged run left (run.CleanRun), in the store
// its result names unless the target flags name one.
func cleanMerged(ctx context.Context, env Env, o *mergeOptions, merged *result.Run) error {
	t := o.target
	if t.target == "" && t.endpoint == "" && t.bucket == "" {
		switch tg := merged.Target; {
		case tg.Embedded && tg.Root == "":
			return inputf("--clean: run %s measured the embedded server, whose objects went with its process", merged.RunID)
		case tg.Kind == "fs":
			t.target = "file://" + tg.Root
		default:
			t.endpoint, t.bucket, t.region = tg.Endpoint, tg.Bucket, tg.Region
		}
	}
	tgt, err := t.open(ctx, env, 8, notes(env, o.quiet))
	if err != nil {
		return err
	}
	defer func() { _ = tgt.Close(context.WithoutCancel(ctx)) }()
	c, err := run.CleanRun(ctx, tgt, merged.RunID, false)
	if err != nil {
		return fmt.Errorf("--clean: %w", err)
	}
	fmt.Fprintf(env.Stdout, "cleaned run %s in %s: %s\n", merged.RunID, tgt.Info.Label(), c)
	return nil
}
