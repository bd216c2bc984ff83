package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/transfer"
)

type cleanOptions struct {
	target targetOptions
	dryRun bool
}

func newCleanCommand(env Env) *cobra.Command {
	o := &cleanOptions{}
	cmd := &cobra.Command{
		Use:   "clean s3://BUCKET/PREFIX",
		Short: "Delete what objbench transfer uploaded under a prefix: exactly the objects its manifests record",
		Long: `Every upload by objbench transfer records the keys it wrote, with their
sizes and ETags, in a manifest beside its prefix (uploads to mail/ keep
theirs under mail.objbench-manifest/). clean deletes exactly those objects,
and only those that still hold what objbench wrote (size and ETag as the
prefix's listing shows them); objects under the prefix that no manifest
records are left alone, whatever a listing says. A manifest or a listing
naming a key outside the prefix is a fault of the store: nothing is
deleted. Each manifest whose objects are all gone is deleted last.

--dry-run counts what would be deleted, and deletes nothing.`,
		Example: `  objbench clean s3://bench/mail/ --endpoint-url http://10.0.0.5:9000 --dry-run
  objbench clean s3://bench/mail/ --endpoint-url http://10.0.0.5:9000`,
		Args: positional(1, 1, "the prefix an upload wrote to (s3://BUCKET/PREFIX)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runClean(cmd.Context(), env, o, args[0])
		},
	}
	f := cmd.Flags()
	o.target.register(f)
	f.BoolVar(&o.dryRun, "dry-run", false, "count what would be deleted; delete nothing")
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
