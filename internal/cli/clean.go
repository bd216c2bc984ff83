package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/run"
	"github.com/objbench/objbench/transfer"
)

type cleanOptions struct {
	target targetOptions
	dryRun bool
	runID  string
}

func newCleanCommand(env Env) *cobra.Command {
	o := &cleanOptions{}
	cmd := &cobra.Command{
		Use:   "clean s3://BUCKET/PREFIX | clean --run RUN-ID",
		Short: "Delete what objbench wrote and left: a transfer's objects (its manifests), or a benchmark run's (--run)",
		Long: `Every upload by objbench transfer records the keys it wrote, with their
sizes and ETags, in a manifest beside its prefix (uploads to mail/ keep
theirs under mail.objbench-manifest/). clean deletes exactly those objects,
and only those that still hold what objbench wrote (size and ETag as the
prefix's listing shows them); objects under the prefix that no manifest
records are left alone, whatever a listing says. A manifest or a listing
naming a key outside the prefix is a fault of the store: nothing is
deleted. Each manifest whose objects are all gone is deleted last.

clean --run RUN-ID deletes what a benchmark run (objbench run, put, get...,
one process or many) left in the store it measured: a run cut short by a
second Ctrl-C, one whose worker died, one run with --no-cleanup. Every run
records a manifest (its id, host and workload) under
objbench/RUN-ID/_workers/manifest/ before it writes anything, and removes
it once its cleanup left nothing. clean --run deletes only when that
manifest is there, and then only keys under objbench/RUN-ID/ in the
buckets the run's workload used whose every segment is a plain name (a key
with an empty, '.' or '..' segment is left alone and named); the
manifests go last. Give the store as the run had it: --endpoint-url and
--bucket, or --target.

--dry-run counts what would be deleted, and deletes nothing.`,
		Example: `  objbench clean s3://bench/mail/ --endpoint-url http://10.0.0.5:9000 --dry-run
  objbench clean s3://bench/mail/ --endpoint-url http://10.0.0.5:9000
  objbench clean --run 20261127-101500-a1b2c3 --endpoint-url http://10.0.0.5:9000 --bucket bench
  objbench clean --run bench-1 --target file:///mnt/nvme/bench --dry-run`,
		Args: func(cmd *cobra.Command, args []string) error {
			if o.runID != "" {
				return positional(0, 0, "")(cmd, args)
			}
			return positional(1, 1, "the prefix an upload wrote to (s3://BUCKET/PREFIX), or --run RUN-ID")(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.runID != "" {
				return runCleanRun(cmd.Context(), env, o)
			}
			return runClean(cmd.Context(), env, o, args[0])
		},
	}
	f := cmd.Flags()
	o.target.register(f)
	f.BoolVar(&o.dryRun, "dry-run", false, "count what would be deleted; delete nothing")
	f.StringVar(&o.runID, "run", "", "delete what the benchmark run RUN-ID left in the store the target flags name (its manifest must be there)")
	return cmd
}

func runClean(ctx context.Context, env Env, o *cleanOptions, arg string) error {
	bucket, prefix, ok := s3URL(arg)
	if !ok {
		return usagef("clean takes s3://BUCKET/PREFIX, not %q", arg)
	}
	if o.target.target != "" {
		return usagef("clean takes s3://BUCKET/PREFIX as an argument, not --target")
	}
	t := &transferOptions{target: o.target}
	st, _, closeStore, err := t.openBucket(ctx, env, bucket, notes(env, false))
	if err != nil {
		return err
	}
	defer func() { _ = closeStore(context.WithoutCancel(ctx)) }()
	c, err := transfer.Clean(ctx, st, prefix, o.dryRun)
	verb := "cleaned"
	if o.dryRun {
		verb = "would clean (dry run, nothing deleted)"
	}
	if c.Manifests > 0 {
		fmt.Fprintf(env.Stdout, "%s %s: %s\n", verb, arg, c)
		for _, m := range c.Kept {
			fmt.Fprintf(env.Stdout, "kept manifest s3://%s/%s: some of its objects are still there\n", bucket, m)
		}
	}
	if err != nil {
		return err
	}
	return nil
}

// runCleanRun deletes what a benchmark run left (run.CleanRun).
func runCleanRun(ctx context.Context, env Env, o *cleanOptions) error {
	if o.target.target == "" && o.target.bucket == "" {
		return usagef("clean --run %s: name the store the run used: --endpoint-url and --bucket, or --target", o.runID)
	}
	tgt, err := o.target.open(ctx, env, 8, notes(env, false))
	if err != nil {
		return err
	}
	defer func() { _ = tgt.Close(context.WithoutCancel(ctx)) }()
	c, err := run.CleanRun(ctx, tgt, o.runID, o.dryRun)
	verb := "cleaned"
	if o.dryRun {
		verb = "would clean (dry run, nothing deleted)"
	}
	if errors.Is(err, run.ErrNoRun) {
		return inputError{err}
	}
	fmt.Fprintf(env.Stdout, "%s run %s in %s: %s\n", verb, o.runID, tgt.Info.Label(), c)
	for _, k := range c.Kept {
		fmt.Fprintf(env.Stdout, "left alone: %q (not a plain name: objbench never writes such a key)\n", k)
	}
	return err
}
