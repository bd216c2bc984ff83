package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/objbench/objbench/atomicfile"
	"github.com/objbench/objbench/report"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/transfer"
)

// transferSchema names the layout of transfer's JSON result.
const transferSchema = "objbench-transfer/1"

// transferReport is the JSON result of one transfer.
type transferReport struct {
	Schema      string           `json:"schema"`
	Version     string           `json:"version"`
	Source      string           `json:"source"`
	Destination string           `json:"destination"`
	Seed        uint64           `json:"seed,omitempty"`
	PlanObjects int              `json:"plan_objects"`
	PlanBytes   int64            `json:"plan_bytes"`
	Result      *transfer.Result `json:"result"`
	MiBps       float64          `json:"mib_per_s"`
	ObjectsPerS float64          `json:"objects_per_s"`
	Verified    bool             `json:"verified"`
	Check       *transfer.Check  `json:"check,omitempty"`
	Error       string           `json:"error,omitempty"`
	// Timeline is each second's system sample and what moved (--timeline).
	Timeline []transferSecond `json:"timeline,omitempty"`
}

// execute runs the plan with a progress line, verifies, prints the table
// and writes the JSON result.
func (o *transferOptions) execute(ctx context.Context, env Env, st storage.Store, plan *transfer.Plan,
	opts transfer.Options, src, dst string) error {
	opts = opts.Resolve(plan)
	dir := "upload"
	if plan.Download {
		dir = "download"
	}
	notes(env, o.quiet)("%s: %d objects, %s, %d workers, %s parts, %d parts in flight per object",
		dir, len(plan.Items), report.Bytes(float64(plan.Bytes())), opts.Workers,
		report.Bytes(float64(opts.PartSize)), opts.PartConcurrency)
	c := &transfer.Counter{}
	opts.Progress = c
	done := make(chan struct{})
	var g errgroup.Group
	if !o.quiet {
		g.Go(func() error { transferProgress(env.Stderr, c, plan, time.Now(), done); return nil })
	}
	var watch *transferWatch
	if o.timeline {
		watch = startTransferWatch(ctx, o.target.endpoint, c, notes(env, o.quiet))
	}
	res, runErr := transfer.Run(ctx, st, plan, opts)
	secs := watch.stop()
	close(done)
	_ = g.Wait()
	rep := &transferReport{Schema: transferSchema, Version: version(), Source: src, Destination: dst,
		PlanObjects: len(plan.Items), PlanBytes: plan.Bytes(), Result: res, Timeline: secs}
	if !plan.Download && plan.Seed != 0 {
		rep.Seed = plan.Seed
	}
	if res != nil {
		rep.MiBps, rep.ObjectsPerS = res.MiBps(), res.ObjectsPerSec()
		writeTransferTable(env.Stdout, res)
	}
	if len(secs) > 0 {
		fmt.Fprintln(env.Stdout)
		if werr := watch.write(env.Stdout, secs, useColor(env, false)); werr != nil {
			return werr
		}
	}
	err := runErr
	if err == nil {
		err = o.verify(ctx, env, st, plan, res, rep)
	}
	if err != nil {
		rep.Error = err.Error()
	}
	if o.out != "" && res != nil {
		if werr := writeTransferJSON(o.out, rep); werr != nil {
			err = errors.Join(err, werr)
		}
	}
	if ctx.Err() != nil {
		return errInterrupted
	}
	return err
}

// verify compares the destination with the plan: an upload's prefix is
// listed (as `s5cmd du` counts it); a download's moved objects and bytes
// are compared with the listing it was planned from.
func (o *transferOptions) verify(ctx context.Context, env Env, st storage.Store, plan *transfer.Plan,
	res *transfer.Result, rep *transferReport) error {
	check := transfer.Check{Objects: res.Objects, Bytes: res.Bytes,
		WantObjects: int64(len(plan.Items)), WantBytes: plan.Bytes()}
	if !plan.Download {
		var err error
		if check, err = transfer.Verify(ctx, st, plan, res.ETags); err != nil {
			return fmt.Errorf("verify: %w", err)
		}
	}
	rep.Check, rep.Verified = &check, check.OK()
	if !check.OK() {
		return fmt.Errorf("%w: %s", errVerify, check)
	}
	fmt.Fprintln(env.Stdout, check)
	return nil
}

func writeTransferTable(w io.Writer, r *transfer.Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "WALL\tOBJECTS\tBYTES\tMiB/s\tOBJECTS/s\tOBJ p50\tOBJ p99\tPART p50\tPART p99\tPARTS\tRETRIES\t")
	fmt.Fprintf(tw, "%.2f s\t%d\t%s\t%.1f\t%.1f\t%s\t%s\t%s\t%s\t%d\t%d\t\n", r.Wall.Seconds(), r.Objects,
		report.Bytes(float64(r.Bytes)), r.MiBps(), r.ObjectsPerSec(), msDur(r.Object.P50), msDur(r.Object.P99),
		msDur(r.Part.P50), msDur(r.Part.P99), r.Parts, r.Retries)
	_ = tw.Flush()
}

// msDur formats a latency in milliseconds with about three significant digits.
func msDur(d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	v := float64(d) / float64(time.Millisecond)
	prec := 0
	switch {
	case v < 1:
		prec = 3
	case v < 10:
		prec = 2
	case v < 100:
		prec = 1
	}
	return strconv.FormatFloat(v, 'f', prec, 64) + " ms"
}

func writeTransferJSON(path string, rep *transferReport) error {
	return atomicfile.Write(path, 0o644, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	})
}

// transferProgress shows the transfer's progress line until done closes.
func transferProgress(w io.Writer, c *transfer.Counter, plan *transfer.Plan, start time.Time, done <-chan struct{}) {
	total := plan.Bytes()
	tickLines(w, start, done, func(el time.Duration) string {
		return amountLine("transfer", "objects", c.Objects.Load(), int64(len(plan.Items)), c.Bytes.Load(), total, el)
	})
}
