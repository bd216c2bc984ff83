package cli

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/objbench/objbench/distributed"
	"github.com/objbench/objbench/profiles/ai"
	"github.com/objbench/objbench/workload"
)

func newAICommand(env Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "ai",
		Short: "AI workloads on a store: emulated training (how many accelerators it feeds), checkpoints, lakehouse scans",
		Long: `Emulate the storage side of AI work, with the parameters of MLPerf Storage's
(v3.0) and DLIO's configuration files (objbench ai models lists them, with
their sources):

  train       emulated accelerators read their data as DLIO's loaders do;
              accelerator utilisation (AU) per epoch, --find-max for the most
              accelerators the store keeps at the AU target
  checkpoint  llama3 checkpoints saved and loaded by many ranks
  lake        queries over Parquet-shaped objects: footers, then column chunks
              by range

Each runs on any target (S3, the embedded server, file://) from one process
or many (--worker), and writes an ordinary result file that report, compare
and merge read.`,
		Args: noArgs(),
	}
	cmd.AddCommand(aiCommandTrain(env, &aiTrainOptions{}), aiCommandCheckpoint(env, &aiCheckpointOptions{}), aiCommandLake(env, &aiLakeOptions{}),
		newAIModelsCommand(env))
	return cmd
}

// aiOptions are the flags every ai command shares.
type aiOptions struct {
	bench  benchOptions
	dryRun bool
	verify bool
}

func (a *aiOptions) register(f *pflag.FlagSet) {
	b := &a.bench
	b.target.register(f)
	f.StringVarP(&b.out, "out", "o", "", "result file (default objbench-results/RUN-ID.json); a directory ending in / holds RUN-ID.json "+
		"(a worker's: RUN-ID/worker-R.json); s3://BUCKET/PREFIX/ uploads it there too")
	f.StringVar(&b.csv, "csv", "", "also write the table as CSV to this file")
	f.StringVar(&b.html, "html", "", "also write the report as one self-contained HTML page with charts")
	f.Int64Var(&b.maxErrors, "max-errors", 0, "stop the run after this many failed requests (default: never)")
	f.DurationVar(&b.grace, "grace", 10*time.Second, "how long in-flight requests may finish after a step stops")
	f.BoolVarP(&b.quiet, "quiet", "q", false, "print only the tables")
	f.StringVar(&b.listen, "listen", "", "while the run goes, serve a live page, its event stream and Prometheus /metrics on this address (127.0.0.1:8080)")
	b.dist.register(f)
	registerOpLog(f, &b.opLog)
	f.BoolVar(&a.dryRun, "dry-run", false, "print the plan (objects, bytes, requests) and touch no storage")
	f.BoolVar(&a.verify, "verify", false, "check every byte read against what was written")
}

// worker resolves --worker for planning (runBench resolves it again); a
// dry run needs no run id.
func (a *aiOptions) worker(env Env) (distributed.Worker, error) {
	resolve := a.bench.dist.resolve
	if a.dryRun {
		resolve = a.bench.dist.resolveForPlan
	}
	w, _, _, err := resolve(env)
	return w, err
}

// generate is --generate, or true for a run (not a dry run) on the
// embedded server, which starts empty: its data set (what) must be
// written there first, which a note says.
func (a *aiOptions) generate(env Env, flag bool, what string) bool {
	t := a.bench.target
	ep, _ := envEndpoint(env)
	if flag || a.dryRun || t.target != "" || t.endpoint != "" || t.bucket != "" || t.profile != "" || ep != "" {
		return flag
	}
	notes(env, a.bench.quiet)("the embedded server starts empty: %s is generated first", what)
	return true
}

// runAI prints p (--dry-run) or runs it as an ordinary run.
func runAI(ctx context.Context, env Env, a *aiOptions, p *ai.Plan) error {
	if a.dryRun {
		if errs := p.Spec.Validate(); len(errs) > 0 {
			return inputError{joinLines(errs)}
		}
		writePlan(env.Stdout, p)
		return nil
	}
	b := &a.bench
	b.repeat = 1
	note := notes(env, b.quiet)
	for _, l := range p.Lines {
		note("%s", l)
	}
	b.plan = func(string) (*planned, error) {
		return &planned{spec: p.Spec, scripts: p.Scripts, check: p.Check, close: func() {}}, nil
	}
	return runBench(ctx, env, b, workload.Spec{})
}

func writePlan(w io.Writer, p *ai.Plan) {
	fmt.Fprintf(w, "%s: %d stages\n", p.Spec.Name, len(p.Spec.Stages))
	for _, l := range p.Lines {
		fmt.Fprintln(w, "  "+l)
	}
	for _, st := range p.Spec.Stages {
		line := fmt.Sprintf("  stage %s (%s)", st.Name, st.Kind)
		if st.Kind == workload.KindDelay {
			line += fmt.Sprintf(": %v", st.Delay)
		}
		for _, s := range st.Streams {
			line += fmt.Sprintf(": %s, %d at once", s.Name, s.MaxConcurrency())
			if s.Bounds.Ops > 0 {
				line += fmt.Sprintf(", %d requests", s.Bounds.Ops)
			}
		}
		fmt.Fprintln(w, line)
	}
}

func newAIModelsCommand(env Env) *cobra.Command {
	return &cobra.Command{
		Use:   "models",
		Short: "List the training and checkpointing models objbench ai knows, with their parameters and sources",
		Args:  noArgs(),
		RunE: func(*cobra.Command, []string) error {
			tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "MODEL\tACCELERATOR\tFORMAT\tFILES\tSAMPLES/FILE\tRECORD\tSTDEV\tBATCH\tTHREADS\tCOMPUTE\tAU\tEPOCHS\tSOURCE")
			for _, w := range ai.Catalog() {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%v\t%.2f\t%d\t%s\n", w.Model, w.Accelerator, w.Format, w.Files, w.SamplesPerFile,
					w.RecordBytes, w.RecordStdev, w.BatchSize, w.ReadThreads, w.Compute, w.AUTarget, w.Epochs, w.Source)
			}
			fmt.Fprintln(tw)
			fmt.Fprintln(tw, "CHECKPOINT\tPARAMETERS\tLAYERS\tHIDDEN\tFFN\tHEADS\tKV\tTP\tPP\tZERO\tCLOSED RANKS\tSOURCE")
			for _, m := range ai.LLMs() {
				fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n", m.Name, m.Parameters(), m.Layers, m.Hidden, m.FFN,
					m.Heads, m.KVHeads, m.Tensor, m.Pipeline, m.Zero, m.ClosedRanks, m.Source)
			}
			return tw.Flush()
		},
	}
}
