package synth

import (
	"time"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/replay"
)

// Options bound a Profile's memory.
type Options struct {
	// MaxKeys is how many keys are counted exactly before the profile
	// samples them (0: 262,144, some 20 MiB).
	MaxKeys int
}

// Profile accumulates what a trace looks like, one record at a time.
type Profile struct {
	records  int64
	skipped  int64 // records of ops a workload file cannot describe from a trace (copies, batches)
	failed   int64
	ops      [metrics.NumOps]opStat
	ranges   sizeHist
	keys     *keyTable
	arr      arrivals
	workers  map[int]bool
	intended int64 // op log records with an intended start (open loop)
	fromLog  int64 // records with a worker id (op logs)
	// Of reads of tracked keys, per op: how many, and how many were of
	// keys the trace had written; and the sizes the others read.
	keyedReads, rawReads [metrics.NumOps]int64
	dataSizes            sizeHist
}

type opStat struct {
	count   int64
	sizes   sizeHist
	latency time.Duration // sum of the source's total times
	timed   int64
}

// maxWorkers bounds the worker ids remembered.
const maxWorkers = 1 << 16

// New returns an empty profile.
func New(o Options) *Profile {
	if o.MaxKeys <= 0 {
		o.MaxKeys = 1 << 18
	}
	return &Profile{keys: newKeyTable(o.MaxKeys), workers: map[int]bool{}}
}

// Add counts one record, in trace order (read-after-write depends on it).
func (p *Profile) Add(r *replay.Record) {
	if r.Op >= metrics.NumOps || opNames[r.Op] == "" {
		// A copy's source, a batch's keys, a compare-and-swap's ETag are
		// not in a trace: such requests are counted, not synthesized.
		p.skipped++
		return
	}
	p.records++
	if !r.OK() {
		p.failed++
	}
	p.arr.add(r.Start)
	if r.Worker >= 0 {
		p.fromLog++
		if len(p.workers) < maxWorkers {
			p.workers[r.Worker] = true
		}
		if !r.Intended.IsZero() {
			p.intended++
		}
	}
	o := &p.ops[r.Op]
	o.count++
	if r.Latency > 0 {
		o.latency += r.Latency
		o.timed++
	}
	if size, ok := recordSize(r); ok {
		o.sizes.add(size)
	}
	if r.Op == metrics.OpRangeGet && r.Range.Length > 0 {
		p.ranges.add(r.Range.Length)
	}
	if r.Op != metrics.OpList {
		p.countKey(r)
	}
}

// recordSize is the object size a record tells, if any: what a write
// wrote, what a whole GET read. Only a successful transfer tells one: a
// failed request's body is an error document (a 404's few hundred
// bytes), not an object.
func recordSize(r *replay.Record) (int64, bool) {
	if !r.OK() {
		return 0, false
	}
	switch r.Op {
	case metrics.OpPut, metrics.OpMultipart:
		if r.Size == 0 && r.BytesIn > 0 {
			return r.BytesIn, true
		}
		return r.Size, true
	case metrics.OpGet:
		if r.Size == 0 && r.BytesOut > 0 {
			return r.BytesOut, true
		}
		return r.Size, r.Size > 0
	case metrics.OpStat, metrics.OpRangeGet:
		return r.Size, r.Size > 0
	}
	return 0, false
}

func (p *Profile) countKey(r *replay.Record) {
	s := p.keys.get(hashKey(r.Bucket, r.Key))
	if s == nil {
		return
	}
	switch r.Op {
	case metrics.OpGet, metrics.OpRangeGet, metrics.OpStat:
		p.keyedReads[r.Op]++
		if s.writes > 0 {
			s.rawReads++
			p.rawReads[r.Op]++
		} else {
			s.reads++
			if size, ok := recordSize(r); ok {
				p.dataSizes.add(size)
			}
		}
	case metrics.OpPut, metrics.OpMultipart:
		s.writes++
	case metrics.OpDelete:
		s.deletes++
	}
	if size, ok := recordSize(r); ok && size > s.size {
		s.size = size
	}
}

// Summary is what a trace looks like.
type Summary struct {
	Records, Failed int64
	// Skipped counts the requests of ops not synthesized (copies, batch
	// deletes, version listings, compare-and-swap writes).
	Skipped     int64
	First, Last time.Time
	Ops         [metrics.NumOps]int64
	Rate        rateStats
	// OpenLoop is false only for an op log of a closed-loop run (worker
	// ids, no intended starts): production traffic arrives on its own.
	OpenLoop bool
	Workers  int // distinct op log workers
	// Reads is the popularity of keys read before any write of them in
	// the trace; Writes of the keys written; RAW of the written keys read
	// after they were written.
	Reads, Writes, RAW Popularity
	// RAWShare is the share of reads (GET, RANGE-GET, STAT) of keys
	// written earlier in the trace; RAWOf the share of each op's.
	RAWShare float64
	RAWOf    [metrics.NumOps]float64
	// Keys and Bytes are the working set: distinct keys and the sum of
	// their largest sizes seen (estimated from the sample when SampledOneIn
	// is above 1).
	Keys, Bytes  int64
	SampledOneIn int64
}

// Summary fits the profile; call it once, after the last Add.
func (p *Profile) Summary() Summary {
	s := Summary{Records: p.records, Failed: p.failed, Skipped: p.skipped, First: p.arr.first, Last: p.arr.last, SampledOneIn: p.keys.scale()}
	for op := range p.ops {
		s.Ops[op] = p.ops[op].count
	}
	s.Rate = p.arr.stats(p.records)
	s.OpenLoop = p.fromLog == 0 || p.intended > 0
	s.Workers = len(p.workers)
	var reads, writes, raws []point
	var nReads, nRAW int64
	mult := p.keys.mult()
	for h, k := range p.keys.m {
		m := mult(h, k)
		s.Keys += m
		s.Bytes += k.size * m
		reads = append(reads, point{int64(k.reads), m})
		writes = append(writes, point{int64(k.writes + k.deletes), m})
		raws = append(raws, point{int64(k.rawReads), m})
		nReads += int64(k.reads) * m
		nRAW += int64(k.rawReads) * m
	}
	s.Reads, s.Writes, s.RAW = fitPopularity(reads), fitPopularity(writes), fitPopularity(raws)
	if nReads+nRAW > 0 {
		s.RAWShare = float64(nRAW) / float64(nReads+nRAW)
	}
	for op, n := range p.keyedReads {
		if n > 0 {
			s.RAWOf[op] = float64(p.rawReads[op]) / float64(n)
		}
	}
	return s
}
