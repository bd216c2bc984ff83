package cli

import (
	"github.com/spf13/cobra"

	"github.com/objbench/objbench/profiles/ai"
	"github.com/objbench/objbench/units"
)

type aiLakeOptions struct {
	ai                                  aiOptions
	files, rowGroups, columns, projects int
	columnSize, footerSize              string
	queries, perQuery, concurrency      int
	generate                            bool
	dataset                             string
}

// aiCommandLake is the command that runs with o (a workload file's profile
// sets its options through the command's flags).
func aiCommandLake(env Env, o *aiLakeOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lake [flags]",
		Short: "Scan Parquet-shaped objects as lakehouse engines do: footer, then the projected columns' chunks by range",
		Long: `Run queries over a table of Parquet-shaped objects (row groups of column
chunks, the footer at the end), reading them as Spark, Trino and DuckDB
read Parquet on S3: per file the last 8 bytes (the footer's length), the
footer, then the byte ranges of the projected columns' chunks in every
row group, each request after the one before; --concurrency files at once.

It reports scan seconds per query, requests per query, bytes read against
bytes stored and the ranged GETs' latency. The table lives in the store
under objbench/data/NAME/ and is kept: --generate writes it.`,
		Example: `  objbench ai lake --files 32 --column-size 256KiB --queries 5      # embedded server
  objbench ai lake --generate --endpoint-url http://10.0.0.5:9000 --bucket lake
  objbench ai lake --projected 2 --files-per-query 64 --concurrency 32 --endpoint-url http://10.0.0.5:9000 --bucket lake`,
		Args: noArgs(),
		RunE: func(cmd *cobra.Command, _ []string) error { return runAILake(cmd, env, o) },
	}
	f := cmd.Flags()
	f.IntVar(&o.files, "files", 64, "files in the table")
	f.IntVar(&o.rowGroups, "row-groups", 8, "row groups per file")
	f.IntVar(&o.columns, "columns", 20, "columns per row group")
	f.StringVar(&o.columnSize, "column-size", "1MiB", "a column chunk's mean size (columns differ: 0.5x to 1.5x)")
	f.StringVar(&o.footerSize, "footer-size", "64KiB", "the footer's size")
	f.IntVar(&o.projects, "projected", 4, "columns a query reads")
	f.IntVar(&o.queries, "queries", 10, "queries, one after another")
	f.IntVar(&o.perQuery, "files-per-query", 16, "files each query reads")
	f.IntVar(&o.concurrency, "concurrency", 16, "files read at once, in all workers")
	f.BoolVar(&o.generate, "generate", false, "write the table first (default on the embedded server, which starts empty)")
	f.StringVar(&o.dataset, "dataset", "", "the table's data set name (default from its layout)")
	o.ai.register(f)
	return cmd
}

func runAILake(cmd *cobra.Command, env Env, o *aiLakeOptions) error {
	col, err1 := units.ParseSize(o.columnSize)
	foot, err2 := units.ParseSize(o.footerSize)
	if err1 != nil || err2 != nil {
		return usagef("--column-size %q, --footer-size %q: want sizes (1MiB, 64KiB)", o.columnSize, o.footerSize)
	}
	wk, err := o.ai.worker(env)
	if err != nil {
		return err
	}
	generate := o.ai.generate(env, o.generate, "the table")
	p, err := ai.Lake(ai.LakeConfig{Layout: ai.LakeLayout{Files: o.files, RowGroups: o.rowGroups, Columns: o.columns, ColumnBytes: col,
		FooterBytes: foot, Projected: o.projects}, Queries: o.queries, FilesPerQuery: o.perQuery, Concurrency: o.concurrency,
		Generate: generate, Dataset: o.dataset, Worker: wk, Verify: o.ai.verify})
	if err != nil {
		return usageError{err}
	}
	return runAI(cmd.Context(), env, &o.ai, p)
}
