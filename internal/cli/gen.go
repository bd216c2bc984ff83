package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/objbench/objbench/dataset"
	"github.com/objbench/objbench/payload"
	"github.com/objbench/objbench/report"
	"github.com/objbench/objbench/units"
)

type genOptions struct {
	size          string
	count         int
	seed          uint64
	compressRatio float64
	workers       int
	force         bool
	quiet         bool
}

func (o *genOptions) register(cmd *cobra.Command, many bool) {
	f := cmd.Flags()
	f.StringVar(&o.size, "size", "", "size of each file, required: "+units.Units)
	if many {
		f.IntVar(&o.count, "count", 0, "how many files; required")
		f.IntVar(&o.workers, "workers", 4, "files written at once")
	}
	f.Uint64Var(&o.seed, "seed", 0, "payload seed: the same seed writes the same bytes (default: random)")
	f.Float64Var(&o.compressRatio, "compress-ratio", 0, "make the data compress about this many times (default: incompressible)")
	f.BoolVar(&o.force, "force", false, "replace files that already exist")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress")
}

func newGenCommand(env Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "gen",
		Short: "Generate datasets on a file system: many files of a size, or one big file",
	}
	var many, one genOptions
	files := &cobra.Command{
		Use:     "files --count N --size SIZE DIR",
		Short:   "Write N files of SIZE into DIR (file-1 .. file-N, zero-padded to N's width: file-01 .. file-50 for 50)",
		Example: "  objbench gen files --count 2500 --size 1MiB ./data",
		Args:    positional(1, 1, "the directory to write the files into"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if many.count < 1 {
				return usagef("--count must be at least 1")
			}
			if err := checkOutputs(output{flag: "DIR", path: args[0], dir: true}); err != nil {
				return err // before any file: a path through a file, a directory that takes none
			}
			return runGen(cmd.Context(), env, &many, args[0], func(ctx context.Context, size int64, o dataset.Options) error {
				return dataset.WriteFiles(ctx, args[0], many.count, size, o)
			})
		},
	}
	many.register(files, true)
	file := &cobra.Command{
		Use:     "file --size SIZE PATH",
		Short:   "Write one file of SIZE at PATH (like dd from a fast random source)",
		Example: "  objbench gen file --size 10GiB /mnt/nvme/big",
		Args:    positional(1, 1, "the path of the file to write"),
		RunE: func(cmd *cobra.Command, args []string) error {
			one.count = 1
			if err := checkOutputs(output{flag: "PATH", path: args[0]}); err != nil {
				return err
			}
			return runGen(cmd.Context(), env, &one, args[0], func(ctx context.Context, size int64, o dataset.Options) error {
				return dataset.WriteFile(ctx, args[0], size, o)
			})
		},
	}
	one.register(file, false)
	cmd.AddCommand(files, file)
	return cmd
}

// runGen parses the options, runs write with a progress line on stderr and
// prints what was written.
func runGen(ctx context.Context, env Env, o *genOptions, where string,
	write func(context.Context, int64, dataset.Options) error) error {
	if o.size == "" {
		return usagef("--size is required")
	}
	size, err := units.ParseSize(o.size)
	if err != nil {
		return usagef("--size: %v", err)
	}
	if o.compressRatio < 0 || o.workers < 1 && o.count > 1 {
		return usagef("--compress-ratio must not be negative and --workers must be at least 1")
	}
	if o.seed == 0 {
		o.seed = payload.RandomSeed()
	}
	c := &dataset.Counter{}
	opts := dataset.Options{Seed: o.seed, CompressRatio: o.compressRatio, Workers: o.workers, Force: o.force, Counter: c}
	total := size * int64(o.count)
	start := time.Now()
	done := make(chan struct{})
	var g errgroup.Group
	if !o.quiet {
		g.Go(func() error {
			tickLines(env.Stderr, start, done, func(el time.Duration) string {
				return amountLine("gen", "files", c.Files.Load(), int64(o.count), c.Bytes.Load(), total, el)
			})
			return nil
		})
	}
	err = write(ctx, size, opts)
	close(done)
	_ = g.Wait()
	if err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	fmt.Fprintf(env.Stdout, "wrote %d file(s), %s in %.2f s (%s/s) to %s, seed %d\n", c.Files.Load(),
		report.Bytes(float64(c.Bytes.Load())), secs, report.Bytes(float64(c.Bytes.Load())/secs), where, o.seed)
	return nil
}
