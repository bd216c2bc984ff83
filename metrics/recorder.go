package metrics

import (
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
)

// opBucket accumulates one op's results for one second.
type opBucket struct {
	ops     int64 // ended in the second: successful and failed
	bytes   int64 // moved by the successful ones
	dropped int64 // open loop: slots that found no free worker
	errs    map[string]int64
	// allocated on first use, then reused; resp only in open loop
	lat, ttfb, resp *hdr.Histogram
	ticks           *result.TickCounts
}

func (b *opBucket) empty() bool {
	return b.ops == 0 && b.bytes == 0 && b.dropped == 0 && len(b.errs) == 0
}

func (b *opBucket) reset() {
	b.ops, b.bytes, b.dropped = 0, 0, 0
	clear(b.errs)
	for _, h := range [...]*hdr.Histogram{b.lat, b.ttfb, b.resp} {
		if h != nil {
			h.Reset()
		}
	}
	if b.ticks != nil {
		*b.ticks = result.TickCounts{}
	}
}

// secSlot is what a shard holds of one second.
type secSlot struct {
	sec int64 // -1: holds nothing
	ops [NumOps]opBucket
}

// shard is where a group of workers record. Workers share shards (there
// are at most a few per CPU), so memory does not grow with workers; its
// lock is held for a few counter updates per op. It keeps the two latest
// seconds it has seen, so ops recorded just after a second turns (their
// End taken before it) do not force an early hand-over.
type shard struct {
	series *Series
	mu     sync.Mutex
	slots  [2]secSlot
}

// slot returns the shard's slot for sec, handing the older slot over to
// the series first when neither holds sec. Called with sh.mu held.
func (sh *shard) slot(sec int64) *secSlot {
	a, b := &sh.slots[0], &sh.slots[1]
	switch {
	case a.sec == sec:
		return a
	case b.sec == sec:
		return b
	}
	victim := a
	if b.sec < a.sec {
		victim = b
	}
	if victim.sec >= 0 {
		sh.series.absorb(victim)
	}
	victim.sec = sec
	return victim
}

// flushBefore hands the series every slot holding a second before sec.
func (sh *shard) flushBefore(sec int64) {
	sh.mu.Lock()
	for i := range sh.slots {
		if s := &sh.slots[i]; s.sec >= 0 && s.sec < sec {
			sh.series.absorb(s)
		}
	}
	sh.mu.Unlock()
}

// Recorder records one worker's results into its shard and keeps the
// span of its op ends, from which the step's window is computed. Only its
// worker calls Record; the series reads the span once the worker is done.
type Recorder struct {
	sh       *shard
	ph       *phaseShard
	open     bool // results have an Intended start of their own (open loop)
	spanless bool // records no ops, only dropped slots
	// first and last op end, in ns after the series start, plus one
	// (0: no op yet); atomic, as the series looks at first while it runs
	first, last atomic.Int64
}

// OpenLoop marks the recorder's results as open loop: each one's response
// time (End - Intended) is recorded beside its service time (End - Start).
// Call it before the first Record.
func (r *Recorder) OpenLoop() { r.open = true }

// Record adds one result. The op, its bytes, latency and TTFB all count in
// the second (and the tick) in which the op ended; a failed op counts as
// an error of its class and moves no bytes.
func (r *Recorder) Record(res *Result) {
	at := res.End.Sub(r.sh.series.start)
	sec := int64(at / time.Second)
	r.sh.mu.Lock()
	b := &r.sh.slot(sec).ops[res.Op]
	b.ops++
	answered := false
	if res.Err != nil {
		if b.errs == nil {
			b.errs = make(map[string]int64, 4)
		}
		class := storage.ErrorClass(res.Err)
		b.errs[class]++
		// A 412 or 304 is the answer a conditional request asked for:
		// timed, and in the window's rate, like a success.
		answered = result.AnsweredClass(class)
	}
	if res.Err == nil || answered {
		b.bytes += res.Bytes
		if b.ticks == nil {
			b.ticks = new(result.TickCounts)
		}
		t := &b.ticks[tickOf(at)]
		t.OK++
		t.Bytes += res.Bytes
		b.lat = recordInto(b.lat, res.End.Sub(res.Start))
		if !res.FirstByte.IsZero() {
			b.ttfb = recordInto(b.ttfb, res.FirstByte.Sub(res.Start))
		}
		if r.open {
			b.resp = recordInto(b.resp, res.End.Sub(res.Intended))
		}
	}
	r.sh.mu.Unlock()
	if res.Phases != nil && (res.Err == nil || answered) {
		r.ph.record(res.Op, res.Phases)
	}
	if r.first.Load() == 0 {
		r.first.Store(int64(at) + 1)
	}
	r.last.Store(int64(at) + 1)
}

func recordInto(h *hdr.Histogram, d time.Duration) *hdr.Histogram {
	if h == nil {
		h = result.NewHistogram()
	}
	_ = h.RecordValue(micros(d)) // clamped to range: cannot fail
	return h
}

// Dropped counts one open-loop slot of op that found no free worker; it
// goes into the second of at (when it was found dropped). It does not
// touch the recorder's span: a dropped slot is not an op.
func (r *Recorder) Dropped(op Op, at time.Time) {
	sec := int64(at.Sub(r.sh.series.start) / time.Second)
	r.sh.mu.Lock()
	r.sh.slot(sec).ops[op].dropped++
	r.sh.mu.Unlock()
}

// span is the recorder's first and last op end after the series start;
// ok=false when it recorded nothing.
func (r *Recorder) span() (first, last time.Duration, ok bool) {
	f, l := r.first.Load(), r.last.Load()
	return time.Duration(f - 1), time.Duration(l - 1), f != 0
}
