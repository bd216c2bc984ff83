package cli

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/objbench/objbench/report"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/workload"
)

// runTargets runs spec on each --target in turn, each with its own result
// file (and CSV and HTML when asked), then prints them side by side.
func runTargets(ctx context.Context, env Env, o *benchOptions, sp workload.Spec) error {
	targets := o.target.targets
	for _, t := range targets { // every input is checked before any work
		if u, err := url.Parse(t); err != nil || (u.Scheme != "file" && u.Scheme != "s3") {
			return usagef("bad --target %q: want file:///DIR or s3://BUCKET", t)
		}
	}
	if o.outBucket != "" {
		return usagef("--out %s: with several --target, give a local --out (each target's result is written beside it)", o.outBucket)
	}
	if o.cpuProfile != "" {
		return usagef("--cpuprofile profiles one target: give one --target")
	}
	runs := make([]benchOptions, len(targets))
	for i, t := range targets {
		runs[i] = *o
		runs[i].target = o.target.only(t)
		runs[i].out, runs[i].csv, runs[i].html = nthPath(o.out, i+1), nthPath(o.csv, i+1), nthPath(o.html, i+1)
		if err := checkOutputs(runs[i].outputs()...); err != nil {
			return err
		}
	}
	var results []*result.Run
	var failed []error
	for i := range runs {
		fmt.Fprintf(env.Stdout, "Target %d of %d: %s\n", i+1, len(runs), targets[i])
		err := runBench(ctx, env, &runs[i], sp)
		var usage usageError
		if errors.As(err, &usage) && i == 0 {
			return err // bad input shows on the first target: stop before more work
		}
		if err != nil {
			failed = append(failed, fmt.Errorf("--target %s: %w", targets[i], err))
		}
		if r, rerr := result.Read(runs[i].out); rerr == nil {
			results = append(results, r)
		}
		if ctx.Err() != nil {
			break
		}
		fmt.Fprintln(env.Stdout)
	}
	if len(results) > 0 {
		fmt.Fprintf(env.Stdout, "Targets compared (%d of %d ran)\n", len(results), len(targets))
		if err := report.WriteTargets(env.Stdout, results); err != nil {
			return err
		}
	}
	return errors.Join(failed...)
}

// nthPath numbers a per-target output path: r.json becomes r-2.json.
func nthPath(path string, n int) string {
	if path == "" {
		return ""
	}
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "-" + strconv.Itoa(n) + ext
}
