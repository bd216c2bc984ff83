package synth

import (
	"errors"
	"math"
	"time"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/workload"
)

// WorkloadOptions shape the synthesized workload.
type WorkloadOptions struct {
	Name string // "" is "replay-synthesized"
	// Duration of the main stage (0: the trace's span).
	Duration time.Duration
	// RateFactor multiplies the trace's mean rate (0 or 1: as traced).
	RateFactor float64
	// Concurrency of the main stage (0: the op log's workers for a
	// closed-loop trace; for open loop, twice the requests in flight by
	// Little's law, or 16 when the trace has no latencies).
	Concurrency int
}

// Key spaces of a synthesized workload.
const (
	DataPrefix    = "data/"    // keys the trace read before (or without) writing them
	WrittenPrefix = "written/" // keys the trace wrote or deleted
)

// Result is a synthesized workload and what it was made from.
type Result struct {
	Spec    workload.Spec
	Summary Summary
	// Notes say how each part was derived, for the file's comments.
	Notes []string
}

var readOps = []metrics.Op{metrics.OpGet, metrics.OpStat, metrics.OpRangeGet}

// Workload builds the workload that reproduces the profile's trace.
func (p *Profile) Workload(o WorkloadOptions) (Result, error) {
	s := p.Summary()
	if s.Records == 0 {
		return Result{}, errors.New("the trace has no records to synthesize a workload from")
	}
	b := builder{p: p, s: s, o: o}
	b.defaults()
	sp := workload.Spec{Name: b.o.Name}
	if prep := b.prepare(); len(prep.Streams) > 0 {
		sp.Stages = append(sp.Stages, prep)
	}
	sp.Stages = append(sp.Stages, b.main(), workload.Stage{Name: "cleanup", Kind: workload.KindCleanup})
	res := Result{Spec: sp, Summary: s, Notes: b.notes()}
	if errs := sp.Validate(); len(errs) > 0 {
		return res, errors.Join(errs...)
	}
	return res, nil
}

type builder struct {
	p             *Profile
	s             Summary
	o             WorkloadOptions
	raw           float64           // share of reads replayed over the written keys
	data          bool              // the trace read keys it had not written
	reads, writes workload.Selector // sizes of the data keys, of written keys
}

func (b *builder) defaults() {
	if b.o.Name == "" {
		b.o.Name = "replay-synthesized"
	}
	if b.o.Duration <= 0 {
		b.o.Duration = max(b.s.Rate.Span.Round(time.Second), time.Second)
	}
	if b.o.RateFactor <= 0 {
		b.o.RateFactor = 1
	}
	var readCount int64
	for _, op := range readOps {
		readCount += b.s.Ops[op]
	}
	written := b.s.Ops[metrics.OpPut] + b.s.Ops[metrics.OpMultipart]
	if written > 0 && b.s.RAWShare >= 0.01 {
		b.raw = b.s.RAWShare
	}
	b.data = readCount > 0 && b.raw < 1 && b.s.Reads.Keys > 0
	b.reads = b.firstSizes(metrics.OpGet, metrics.OpRangeGet, metrics.OpStat, metrics.OpPut, metrics.OpMultipart)
	if b.p.dataSizes.count > 0 {
		b.reads = b.p.dataSizes.selector()
	}
	b.writes = b.firstSizes(metrics.OpPut, metrics.OpMultipart, metrics.OpGet, metrics.OpRangeGet, metrics.OpStat)
}

// firstSizes is the size histogram of the first op that has sizes, or
// 1 MiB when none has.
func (b *builder) firstSizes(ops ...metrics.Op) workload.Selector {
	for _, op := range ops {
		if h := &b.p.ops[op].sizes; h.count > 0 {
			return h.selector()
		}
	}
	return workload.Const(1 << 20)
}

func (b *builder) dataSpace() workload.KeySpace {
	sel := b.s.Reads.Selector()
	return workload.KeySpace{Prefix: DataPrefix, Index: &sel}
}

func (b *builder) writtenSpace(pop Popularity) workload.KeySpace {
	pop.Keys = max(b.s.Writes.Keys, 1)
	sel := pop.Selector()
	return workload.KeySpace{Prefix: WrittenPrefix, Index: &sel}
}

func every(prefix string, n int64) workload.KeySpace {
	r := workload.Selector{Kind: workload.SelRange, Min: 1, Max: max(n, 1)}
	return workload.KeySpace{Prefix: prefix, Index: &r}
}

// prepare writes the keys the main stage reads: all data keys, and the
// written keys when reads or deletes need them to exist.
func (b *builder) prepare() workload.Stage {
	st := workload.Stage{Name: "prepare", Kind: workload.KindPrepare}
	add := func(name string, ks workload.KeySpace, size workload.Selector) {
		s := workload.Stream{Name: name, Concurrency: []int{16}, Objects: ks, Size: size.Min}
		if size.Kind != workload.SelConst {
			s.SizeDist = &size
		}
		st.Streams = append(st.Streams, s)
	}
	if b.data {
		add("data", every(DataPrefix, b.s.Reads.Keys), b.reads)
	}
	if b.raw > 0 || b.s.Ops[metrics.OpDelete] > 0 {
		add("written", every(WrittenPrefix, b.s.Writes.Keys), b.writes)
	}
	return st
}

func (b *builder) main() workload.Stage {
	st := workload.Stage{Name: "replay", Kind: workload.KindMain}
	mainW, rawW := b.weights()
	var total float64
	for op := range mainW {
		total += mainW[op] + rawW[op]
	}
	conc := b.concurrency()
	if sum(mainW[:]) > 0 {
		st.Streams = append(st.Streams, b.stream("replay", mainW, sum(mainW[:])/total, conc, false))
	}
	if sum(rawW[:]) > 0 {
		st.Streams = append(st.Streams, b.stream("read-after-write", rawW, sum(rawW[:])/total, conc, true))
	}
	return st
}

// weights splits the trace's op counts between the main stream and the
// read-after-write stream.
func (b *builder) weights() (mainW, rawW [metrics.NumOps]float64) {
	for op, n := range b.s.Ops {
		mainW[op] = float64(n)
	}
	for _, op := range readOps {
		if b.raw > 0 {
			rawW[op] = mainW[op] * b.s.RAWOf[op]
		}
		mainW[op] -= rawW[op]
		if !b.data {
			mainW[op] = 0
		}
	}
	return mainW, rawW
}

func sum(xs []float64) float64 {
	var t float64
	for _, x := range xs {
		t += x
	}
	return t
}

// concurrency is the main stage's workers, before the split by streams.
func (b *builder) concurrency() int {
	if b.o.Concurrency > 0 {
		return b.o.Concurrency
	}
	if !b.s.OpenLoop {
		return max(b.s.Workers, 1)
	}
	var lat time.Duration
	var timed int64
	for i := range b.p.ops {
		lat += b.p.ops[i].latency
		timed += b.p.ops[i].timed
	}
	if timed == 0 {
		return 16
	}
	inFlight := b.s.Rate.Mean * b.o.RateFactor * (lat.Seconds() / float64(timed))
	return int(min(max(math.Ceil(2*inFlight), 1), 10000))
}
