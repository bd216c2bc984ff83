package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/report"
	"github.com/objbench/objbench/result"
)

func newCompareCommand(env Env) *cobra.Command {
	var failIf []string
	var htmlOut string
	var allSteps bool
	cmd := &cobra.Command{
		Use:   "compare BASE OTHER [MORE ...]",
		Short: "Set runs side by side: changes against the first side, marked when significant over several runs",
		Long: `Compare sides of runs row by row (stage, step, stream, op): ops/s, MiB/s,
latency percentiles and errors, each with its change against the first side.

A side is one result file, a comma-separated list of them (a.json,b.json)
or a directory (its *.json files): runs of the same thing. Whether a change
is more than noise is judged over the runs, each run one sample, by a
Mann-Whitney U test (as benchstat): "*" significant (p<0.05 and at least
2%), no mark noise, "?" not tested. A run's own seconds cannot show what
changes from one run to the next, so one run a side is never tested: 4 runs
a side is the least that can be (the first line says so when there are
fewer). Significant changes are listed after the table with their 95%
confidence intervals. docs/reports-and-compare.md, "Comparing runs",
gives the rules and their measured error rates.

Only the main steps are compared unless --all-steps asks for prepare and
cleanup too: their few ops in a fraction of a second are not what a run
measures.

--fail-if makes it a CI gate: exit 1 when a change of a main step crosses
a threshold and is not shown to be noise (an untested change counts;
prepare and cleanup never trip it). EXPR is [OP:]METRIC>PCT% or
[OP:]METRIC<PCT%, METRIC one of throughput, ops, p50, p90, p99, p99.9,
max, errors.

--html also writes the comparison as one self-contained HTML page with
charts (of each side's first run; opens offline); the table still prints.`,
		Example: `  objbench compare main.json branch.json
  objbench compare main-1.json,main-2.json,main-3.json,main-4.json branch/   # 4 runs against a directory of runs
  objbench compare --fail-if 'p99>+10%' --fail-if 'throughput<-5%' base/ new/
  objbench compare --fail-if 'GET:p99.9>+20%' a.json b.json c.json
  objbench compare --html compare.html main.json branch.json`,
		Args: positional(2, -1, "two or more sides (result files, comma lists or directories), the base first"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCompare(cmd.Context(), env, args, failIf, htmlOut, allSteps)
		},
	}
	cmd.Flags().StringArrayVar(&failIf, "fail-if", nil, "exit 1 when a change crosses this threshold, e.g. 'p99>+10%' or 'GET:throughput<-5%' (repeatable)")
	cmd.Flags().StringVar(&htmlOut, "html", "", "also write the comparison as one self-contained HTML page with charts (opens offline)")
	cmd.Flags().BoolVar(&allSteps, "all-steps", false, "compare the prepare and cleanup steps too, not only the main steps (--fail-if still judges the main steps only)")
	return cmd
}

func runCompare(ctx context.Context, env Env, args, failIf []string, htmlOut string, allSteps bool) error {
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
	sides := make([][]*result.Run, len(args))
	for i, arg := range args {
		files, err := sideFiles(arg)
		if err != nil {
			return err
		}
		for _, f := range files {
			r, err := result.ReadContext(ctx, f)
			if ctx.Err() != nil {
				return errInterrupted
			}
			if err != nil {
				return inputError{err}
			}
			sides[i] = append(sides[i], r)
		}
	}
	mains := make([][]*result.Run, len(sides))
	first := make([]*result.Run, len(sides)) // each side's first run: its phases and page
	for i, side := range sides {
		for _, r := range side {
			mains[i] = append(mains[i], report.MainSteps(r))
		}
		first[i] = mains[i][0]
	}
	gate := report.CompareSides(mains...) // --fail-if judges the main steps only
	gate.Labels = runLabels(args)
	c := gate
	if allSteps {
		c = report.CompareSides(sides...)
		c.Labels = gate.Labels
		for i, side := range sides {
			first[i] = side[0]
		}
	}
	if err := report.WriteCompareTable(env.Stdout, c); err != nil {
		return err
	}
	if err := report.WriteComparePhases(env.Stdout, c.Labels, first); err != nil {
		return inputError{err}
	}
	if err := report.WriteCompareAI(env.Stdout, c.Labels, sides); err != nil {
		return err
	}
	crossed := gate.Check(thresholds)
	for _, v := range crossed {
		fmt.Fprintln(env.Stdout, "FAIL "+v.String(c.Labels))
	}
	if htmlOut != "" { // also when a threshold is crossed: CI keeps the page of a failed gate
		if err := writeCompareHTMLFile(htmlOut, c, first); err != nil {
			return err
		}
	}
	if len(crossed) > 0 {
		return fmt.Errorf("%d --fail-if threshold(s) crossed", len(crossed))
	}
	return nil
}

// sideFiles are the result files of one side: a directory's *.json
// files, the files of a comma-separated list, or the one file named.
func sideFiles(arg string) ([]string, error) {
	if strings.Contains(arg, ",") {
		var files []string
		for _, f := range strings.Split(arg, ",") {
			if f = strings.TrimSpace(f); f != "" {
				files = append(files, f)
			}
		}
		return files, nil
	}
	if st, err := os.Stat(arg); err == nil && st.IsDir() {
		files, err := filepath.Glob(filepath.Join(arg, "*.json"))
		if err == nil && len(files) == 0 {
			err = fmt.Errorf("%s: no *.json result files in it", arg)
		}
		if err != nil {
			return nil, inputError{err}
		}
		return files, nil // Glob's order: sorted
	}
	return []string{arg}, nil
}

// runLabels names sides by file or directory name, or by the argument as
// given when names repeat; a comma list by its first file and how many
// more it has.
func runLabels(args []string) []string {
	label := func(arg string, full bool) string {
		if first, _, list := strings.Cut(arg, ","); list {
			n := len(strings.Split(arg, ",")) - 1
			if !full {
				first = filepath.Base(first)
			}
			return fmt.Sprintf("%s +%d", first, n)
		}
		if full {
			return arg
		}
		return filepath.Base(arg)
	}
	seen := map[string]bool{}
	labels := make([]string, len(args))
	for i, a := range args {
		labels[i] = label(a, false)
		if seen[labels[i]] {
			for j, a := range args {
				labels[j] = label(a, true)
			}
			return labels
		}
		seen[labels[i]] = true
	}
	return labels
}
