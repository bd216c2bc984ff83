package cli

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/report"
	"github.com/objbench/objbench/result"
)

func newCompareCommand(env Env) *cobra.Command {
	var failIf []string
	var htmlOut string
	var allSteps bool
	cmd := &cobra.Command{
		Use:   "compare BASE.json OTHER.json [MORE.json ...]",
		Short: "Set result files side by side: changes against the first, marked when significant",
		Long: `Compare result files row by row (stage, step, stream, op): ops/s, MiB/s,
latency percentiles and errors, each with its change against the first file
and a mark: "*" significant, "?" too few samples to test. The rules:
docs/reports-and-compare.md, "Comparing runs".

Only the main steps are compared unless --all-steps asks for prepare and
cleanup too: their few ops in a fraction of a second are not what a run
measures.

--fail-if makes it a CI gate: exit 1 when a change of a main step crosses
a threshold and is not shown to be noise (prepare and cleanup never trip
it). EXPR is [OP:]METRIC>PCT% or [OP:]METRIC<PCT%, METRIC one of
throughput, ops, p50, p90, p99, p99.9, max, errors.

--html also writes the comparison as one self-contained HTML page with
charts (opens offline); the table still prints.`,
		Example: `  objbench compare main.json branch.json
  objbench compare --fail-if 'p99>+10%' --fail-if 'throughput<-5%' base.json new.json
  objbench compare --fail-if 'GET:p99.9>+20%' a.json b.json c.json
  objbench compare --html compare.html main.json branch.json`,
		Args: positional(2, -1, "two or more result files, the base first"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCompare(cmd.Context(), env, args, failIf, htmlOut, allSteps)
		},
	}
	cmd.Flags().StringArrayVar(&failIf, "fail-if", nil, "exit 1 when a change crosses this threshold, e.g. 'p99>+10%' or 'GET:throughput<-5%' (repeatable)")
	cmd.Flags().StringVar(&htmlOut, "html", "", "also write the comparison as one self-contained HTML page with charts (opens offline)")
	cmd.Flags().BoolVar(&allSteps, "all-steps", false, "compare the prepare and cleanup steps too, not only the main steps (--fail-if still judges the main steps only)")
	return cmd
}

func runCompare(ctx context.Context, env Env, files, failIf []string, htmlOut string, allSteps bool) error {
	var thresholds []report.Threshold
	for _, expr := range failIf {
		t, err := report.ParseThreshold(expr)
		if err != nil {
			return usagef("--fail-if: %v", err)
		}
		thresholds = append(thresholds, t)
	}
	if err := checkOutputs(output{flag: "--html", path: htmlOut}); err != nil {
		return err
	}
	runs := make([]*result.Run, len(files))
	for i, f := range files {
		r, err := result.ReadContext(ctx, f)
		if ctx.Err() != nil {
			return errInterrupted
		}
		if err != nil {
			return inputError{err}
		}
		runs[i] = r
	}
	mains := make([]*result.Run, len(runs))
	for i, r := range runs {
		mains[i] = report.MainSteps(r)
	}
	gate := report.Compare(mains[0], mains[1:]...) // --fail-if judges the main steps only
	gate.Labels = runLabels(files)
	c := gate
	if allSteps {
		c = report.Compare(runs[0], runs[1:]...)
		c.Labels = gate.Labels
	} else {
		runs = mains
	}
	if err := report.WriteCompareTable(env.Stdout, c); err != nil {
		return err
	}
	if err := report.WriteComparePhases(env.Stdout, c.Labels, runs); err != nil {
		return inputError{err}
	}
	crossed := gate.Check(thresholds)
	for _, v := range crossed {
		fmt.Fprintln(env.Stdout, "FAIL "+v.String(c.Labels))
	}
	if htmlOut != "" { // also when a threshold is crossed: CI keeps the page of a failed gate
		if err := writeCompareHTMLFile(htmlOut, c, runs); err != nil {
			return err
		}
	}
	if len(crossed) > 0 {
		return fmt.Errorf("%d --fail-if threshold(s) crossed", len(crossed))
	}
	return nil
}

// runLabels names runs by file name, or by path when names repeat.
func runLabels(files []string) []string {
	seen := map[string]bool{}
	labels := make([]string, len(files))
	for i, f := range files {
		labels[i] = filepath.Base(f)
		if seen[labels[i]] {
			return append([]string(nil), files...)
		}
		seen[labels[i]] = true
	}
	return labels
}
