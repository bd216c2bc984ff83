package transfer

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/objbench/objbench/payload"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/retry"
)

// runner is one Run's shared state.
type runner struct {
	st      storage.Store // the caller's store, its requests retried
	raw     storage.Store // the caller's store itself
	o       Options
	block   *payload.Block // nil unless the plan has generated items
	lat     *latencies
	reqs    *requests
	parts   atomic.Int64
	retries atomic.Int64
	objects atomic.Int64
	bytes   atomic.Int64
	written *Written // upload: what finished, with its ETag
	dest    *destDir // download: where its files go, if anywhere
}

// Run moves the plan's objects to (upload) or from (download) st with
// o.Workers objects in flight, taking them from the plan one at a time
// (a corpus plan's are never all in memory). The first object that fails
// for good stops the run; the Result then counts what was moved before.
// An upload's Result holds what it wrote in temporary files: Close it
// when done.
func Run(ctx context.Context, st storage.Store, p *Plan, o Options) (*Result, error) {
	o = o.Resolve(p)
	start := time.Now()
	r := &runner{raw: st, o: o, lat: newLatencies(), reqs: newRequests(start, p.Download, st)}
	if !p.Download {
		r.written = newWritten(o)
	}
	r.st = retry.New(st, retry.Policy{Retries: o.Retries, OnRetry: r.retried})
	if p.Download && p.Dest != "" {
		d, err := openDest(p.Dest)
		if err != nil {
			return nil, err
		}
		defer d.close()
		r.dest = d
	}
	if !p.Download && hasGenerated(p) {
		b, err := payload.NewBlock(payload.DefaultBlockSize, p.Seed, 0)
		if err != nil {
			_ = r.written.Close()
			return nil, err
		}
		r.block = b
	}
	items := make(chan Item)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(items)
		return p.Each(gctx, func(it Item) error {
			select {
			case items <- it:
				return nil
			case <-gctx.Done():
				return gctx.Err()
			}
		})
	})
	for range o.Workers {
		g.Go(func() error {
			for it := range items {
				if err := r.move(gctx, p.Download, it); err != nil {
					return err
				}
			}
			return nil
		})
	}
	var sweep errgroup.Group
	stop := make(chan struct{})
	sweep.Go(func() error { r.reqs.sweep(stop); return nil })
	err := g.Wait()
	wall := time.Since(start)
	close(stop)
	_ = sweep.Wait()
	secs, _ := r.reqs.series.Finish()
	res := &Result{Start: start, Seconds: secs, Phases: r.reqs.series.Phases(), PartLatency: result.EncodeHistogram(r.lat.part), Written: r.written,
		Transfer: result.Transfer{Download: p.Download, PlanObjects: p.Objects(), PlanBytes: p.Bytes(),
			Objects: r.objects.Load(), Bytes: r.bytes.Load(), Parts: r.parts.Load(), Retries: r.retries.Load(), Wall: wall,
			PartSize: o.PartSize, PartConcurrency: o.PartConcurrency, Workers: o.Workers, ObjectLatency: result.EncodeHistogram(r.lat.object)}}
	return res, err
}

// hasGenerated says whether some item of the plan is generated data: a
// corpus plan has none.
func hasGenerated(p *Plan) bool {
	if p.src != nil {
		return p.src.generated()
	}
	for _, it := range p.Items {
		if it.Path == "" && it.Corpus == nil {
			return true
		}
	}
	return false
}

// move transfers one object and accounts for it.
func (r *runner) move(ctx context.Context, download bool, it Item) error {
	start := time.Now()
	if download {
		if err := r.download(ctx, it); err != nil {
			return err
		}
	} else {
		etag, err := r.upload(ctx, it)
		if err != nil {
			return err
		}
		if err := r.written.add(it.Key, it.Size, etag); err != nil {
			return fmt.Errorf("upload %s: written, but not recorded: %w", it.Key, err)
		}
	}
	r.lat.record(r.lat.object, time.Since(start))
	r.objects.Add(1)
	if r.o.Progress != nil {
		r.o.Progress.Objects.Add(1)
	}
	return nil
}

// request accounts for one data request (a small object's PUT or GET,
// a part, a ranged GET) that started at start and, without err, moved n
// bytes: its latency runs from its first attempt to its success.
func (r *runner) request(start time.Time, tr *storage.Trace, n int64, err error) {
	end := time.Now()
	if err != nil {
		r.reqs.done(start, end, tr, 0, err)
		return
	}
	r.reqs.done(start, end, tr, n, nil)
	r.lat.record(r.lat.part, end.Sub(start))
	r.parts.Add(1)
	r.bytes.Add(n)
	if r.o.Progress != nil {
		r.o.Progress.Bytes.Add(n)
	}
}

// retried counts a request tried again.
func (r *runner) retried(rt retry.Retry) {
	r.retries.Add(1)
	r.reqs.failedAttempt(rt)
}

// forEachPart calls part for every part of an object of size bytes, with
// o.PartConcurrency in flight, and stops at the first error.
func (r *runner) forEachPart(ctx context.Context, size int64, part func(ctx context.Context, n int, off, size int64) error) error {
	ps := r.o.PartSize
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(r.o.PartConcurrency)
	for i := range parts(size, ps) {
		if gctx.Err() != nil {
			break
		}
		off := int64(i) * ps
		g.Go(func() error { return part(gctx, i+1, off, min(ps, size-off)) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err() // parts skipped after an interrupt

}
