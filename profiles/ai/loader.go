package ai

import (
	"context"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/result"
)

// batches says which samples batch k of accelerator g holds.
type batches interface {
	fill(g, k int, dst []int64)
}

// epochBatches are the batches of one epoch as DLIO deals them: the
// epoch's order (seeded by seed and the epoch) cut into one shard per
// accelerator, read in whole batches.
type epochBatches struct {
	n      int64
	accels int
	batch  int
	o      order
}

func newEpochBatches(ds Dataset, seed uint64, epoch, accels, batch int) *epochBatches {
	return &epochBatches{n: ds.Samples(), accels: accels, batch: batch, o: newOrder(ds, seed, epoch)}
}

// steps is how many batches each accelerator computes in the epoch.
func (e *epochBatches) steps() int {
	return int(ShardOf(e.n, 0, e.accels, e.batch).Len / int64(e.batch))
}

func (e *epochBatches) fill(g, k int, dst []int64) {
	sh := ShardOf(e.n, g, e.accels, e.batch)
	for i := range dst {
		dst[i] = e.o.at(sh.From + int64(k*e.batch+i))
	}
}

// roundBatches deal the samples of epoch after epoch (each its own
// order) batch by batch to the accelerators in turn: batch k of
// accelerator g is the (k*accels+g)-th batch of that endless sequence.
// A --find-max round reads as many batches as it needs, whatever the
// data set's size and the accelerators' number.
type roundBatches struct {
	ds     Dataset
	seed   uint64
	accels int
	batch  int
}

func (r roundBatches) fill(g, k int, dst []int64) {
	n := r.ds.Samples()
	base := (int64(k)*int64(r.accels) + int64(g)) * int64(r.batch)
	var o order
	cur := -1
	for i := range dst {
		pos := base + int64(i)
		if e := int(pos/n) + 1; e != cur {
			o, cur = newOrder(r.ds, r.seed, e), e
		}
		dst[i] = o.at(pos % n)
	}
}

// loader is one emulated accelerator: a data loader shaped as PyTorch's
// (DLIO's unet3d path): its read threads each build whole batches, batch
// k going to thread k mod threads; it asks for batches ahead, at most
// depth beyond the one the accelerator waits on, asking for the next as
// each is handed over; the accelerator takes the batches in order,
// computes (sleeps) for each, then meets the process's other
// accelerators at a barrier (DLIO's emulated all-reduce).
type loader struct {
	ds      Dataset
	deal    batches
	g       int // the accelerator's number in the run
	steps   int
	batch   int
	depth   int
	compute time.Duration
	iss     []*loadgen.Issuer
	bar     *barrier
}

type batchJob struct {
	k       int
	samples []int64
}

type batchDone struct {
	bytes  int64
	errors int64
}

// run runs the accelerator's epoch (or round) and returns its record.
func (l *loader) run(ctx context.Context) result.Loader {
	threads := len(l.iss)
	per := (l.depth+threads-1)/threads + 1
	in, out := make([]chan batchJob, threads), make([]chan batchDone, threads)
	var g errgroup.Group
	for j := range threads {
		in[j], out[j] = make(chan batchJob, per), make(chan batchDone, per)
		g.Go(func() error { l.thread(ctx, l.iss[j], in[j], out[j]); return nil })
	}
	dispatch := func(k int) {
		job := batchJob{k: k, samples: make([]int64, l.batch)}
		l.deal.fill(l.g, k, job.samples)
		in[k%threads] <- job
	}
	start := time.Now()
	m := newAUMeter(start)
	for k := range min(l.depth, l.steps) {
		dispatch(k)
	}
	var bytes, errs int64
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	waitFrom := start
	for k := 0; k < l.steps; k++ {
		var d batchDone
		select {
		case d = <-out[k%threads]:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		loaded := time.Now()
		bytes, errs = bytes+d.bytes, errs+d.errors
		if k+l.depth < l.steps {
			dispatch(k + l.depth)
		}
		if !sleepOn(ctx, timer, l.compute) {
			break
		}
		m.step(waitFrom, loaded, time.Now())
		if !l.bar.wait(ctx) {
			break
		}
		waitFrom = time.Now()
	}
	for j := range in {
		close(in[j])
	}
	_ = g.Wait() // the threads return nil
	rec := m.finish(time.Now())
	rec.Accelerator, rec.Bytes, rec.Errors = l.g, bytes, errs
	rec.Samples = int64(m.steps * l.batch)
	return rec
}

// thread is one read thread: it reads each batch it is given, sample by
// sample (through its own sampleReader, as each of DLIO's reader
// threads has its own reader), and hands it over.
func (l *loader) thread(ctx context.Context, is *loadgen.Issuer, in <-chan batchJob, out chan<- batchDone) {
	rd := newSampleReader(l.ds)
	for job := range in {
		var d batchDone
		for _, s := range job.samples {
			if ctx.Err() != nil {
				break
			}
			for _, op := range rd.reads(s) {
				n, err := is.Do(op)
				d.bytes += n
				if err != nil {
					d.errors++
				}
			}
		}
		out <- d
	}
}

// sleepOn waits d on t, or until ctx ends; it reports whether d passed.
func sleepOn(ctx context.Context, t *time.Timer, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t.Reset(d)
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		t.Stop()
		return false
	}
}

// barrier holds each of n goroutines until all n have come (again and
// again), or until their context ends.
type barrier struct {
	mu      sync.Mutex
	n, here int
	release chan struct{}
}

func newBarrier(n int) *barrier { return &barrier{n: n, release: make(chan struct{})} }

// wait reports whether all came before ctx ended.
func (b *barrier) wait(ctx context.Context) bool {
	b.mu.Lock()
	ch := b.release
	b.here++
	if b.here == b.n {
		b.here, b.release = 0, make(chan struct{})
		b.mu.Unlock()
		close(ch)
		return true
	}
	b.mu.Unlock()
	select {
	case <-ch:
		return true
	case <-ctx.Done():
		return false
	}
}
