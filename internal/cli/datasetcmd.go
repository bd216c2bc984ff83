package cli

import (
	"context"
	"os"
	"slices"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/objbench/objbench/workload"
)

// newDatasetCommand is objbench dataset: the data sets run --dataset keeps.
func newDatasetCommand(env Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dataset",
		Short: "Data sets kept in the store by 'objbench run --dataset NAME'",
	}
	o := &benchOptions{repeat: 1, grace: 10 * time.Second, size: "0", concurrency: "1", fsync: "none"}
	rm := &cobra.Command{
		Use:   "rm NAME [WORKLOAD.yaml | COSBENCH.xml]",
		Short: "Delete data set NAME: every object under objbench/data/NAME/ in the target's bucket, or in every bucket the workload names",
		Long: `Delete data set NAME: every object under objbench/data/NAME/ in the
target's bucket, or, given the workload file that wrote it, in every bucket
it names (a COSBench workload's containers). Nothing outside that prefix is
touched, and buckets are kept. This is the only way a data set is deleted:
runs with --dataset skip their cleanup and dispose stages.`,
		Example: `  objbench dataset rm train --endpoint-url http://127.0.0.1:9000 --bucket bench
  objbench dataset rm cos1 --endpoint-url http://127.0.0.1:9000 prepare.xml`,
		Args: positional(1, 2, "the data set's name, and the workload file that names its buckets"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDatasetRemove(cmd.Context(), env, o, cmd.Flags(), args)
		},
	}
	o.target.register(rm.Flags())
	rm.Flags().StringVarP(&o.out, "out", "o", "", "result file (default objbench-results/RUN-ID.json)")
	rm.Flags().BoolVarP(&o.quiet, "quiet", "q", false, "print only the table")
	cmd.AddCommand(rm)
	return cmd
}

// runDatasetRemove runs one cleanup stage on data set args[0], in the
// buckets the workload file args[1] names (else the target's bucket).
func runDatasetRemove(ctx context.Context, env Env, o *benchOptions, flags *pflag.FlagSet, args []string) error {
	name := args[0]
	if !workload.ValidDatasetName(name) {
		return usagef("data set name %q: want 1 to 64 letters, digits, '.', '_' or '-'", name)
	}
	rm := workload.Stream{Name: "dataset rm", Concurrency: []int{8}}
	streams := []workload.Stream{rm}
	if len(args) == 2 {
		data, err := os.ReadFile(args[1])
		if err != nil {
			return inputf("read workload: %v", err)
		}
		named := o.target.endpoint != "" || o.target.bucket != "" || o.target.target != ""
		file, _, err := workload.DecodeWith(args[1], data, workload.DecodeOptions{Target: named, Dataset: name})
		if err != nil {
			return inputError{err}
		}
		o.target.applyStorage(file.Storage, flags)
		var buckets []string
		for _, st := range file.Stages {
			for _, b := range file.Buckets(st) {
				if !slices.Contains(buckets, b) {
					buckets = append(buckets, b)
				}
			}
		}
		if len(buckets) > 0 {
			rm.Objects.Buckets = buckets
			streams = []workload.Stream{rm}
			if usesTargetBucket(file) {
				streams = append(streams, workload.Stream{Name: "dataset rm (target bucket)", Concurrency: []int{8}})
			} else if o.target.target == "" && o.target.bucket == "" && o.target.endpoint != "" {
				o.target.bucket, o.target.lazyBucket = buckets[0], true
			}
		}
	}
	sp := workload.Spec{Name: "dataset rm " + name, Dataset: name,
		Stages: []workload.Stage{{Name: "dataset rm", Kind: workload.KindCleanup, Streams: streams}}}
	o.deleteDataset = true
	return runBench(ctx, env, o, sp)
}
