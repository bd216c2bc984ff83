package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/objbench/objbench/report"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/run"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/transfer"
)

// execute runs the plan (--repeat times) with a progress line, prints the
// transfer table, the timeline, the checks and the verdict, and writes
// the result file.
func (o *transferOptions) execute(ctx context.Context, env Env, st storage.Store, info result.Target, plan *transfer.Plan,
	opts transfer.Options, linkBps float64, src, dst string) error {
	opts = opts.Resolve(plan)
	dir := "upload"
	if plan.Download {
		dir = "download"
	}
	note := notes(env, o.quiet)
	note("%s: %d objects, %s, %d workers, %s parts, %d parts in flight per object",
		dir, plan.Objects(), report.Bytes(float64(plan.Bytes())), opts.Workers,
		report.Bytes(float64(opts.PartSize)), opts.PartConcurrency)
	c := &transfer.Counter{}
	opts.Progress = c
	done := make(chan struct{})
	var g errgroup.Group
	if !o.quiet {
		g.Go(func() error { transferProgress(env.Stderr, c, plan, time.Now(), done); return nil })
	}
	onStep := func(rep int) {
		if rep > 0 {
			c.Objects.Store(0)
			c.Bytes.Store(0)
		}
	}
	res, runErr := run.Transfer(ctx, info, st, plan, opts, run.TransferOptions{Tool: tool(),
		Source: src, Destination: dst, Repeat: o.repeat, LinkSpeed: linkBps, OnStep: onStep, Note: note, NoManifest: !o.manifest})
	close(done)
	_ = g.Wait()
	if res == nil {
		return runErr
	}
	err := runErr
	if werr := o.print(env, res); werr != nil {
		err = errors.Join(err, werr)
	}
	if o.out != "" {
		if werr := result.Write(o.out, res); werr != nil {
			err = errors.Join(err, werr)
		}
	}
	if ctx.Err() != nil {
		return errInterrupted
	}
	return err
}

// print writes the transfer table, the timeline (--timeline), each
// step's check and the verdict.
func (o *transferOptions) print(env Env, res *result.Run) error {
	if err := report.WriteTransfers(env.Stdout, res); err != nil {
		return err
	}
	if o.timeline && res.System != nil && len(res.System.Samples) > 0 {
		fmt.Fprintln(env.Stdout)
		return report.WriteTimeline(env.Stdout, res, report.TimelineStyle{Color: useColor(env, false)}) // ends with the verdict
	}
	report.WriteVerdict(env.Stdout, res)
	return nil
}

// transferProgress shows the transfer's progress line until done closes.
func transferProgress(w io.Writer, c *transfer.Counter, plan *transfer.Plan, start time.Time, done <-chan struct{}) {
	total := plan.Bytes()
	tickLines(w, start, done, func(el time.Duration) string {
		return amountLine("transfer", "objects", c.Objects.Load(), plan.Objects(), c.Bytes.Load(), total, el)
	})
}
