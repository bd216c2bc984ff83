package metrics

import (
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/objbench/objbench/storage"
)

// opBucket accumulates one op's results for one second of one worker.
type opBucket struct {
	ops, bytes int64
	dropped    int64 // open loop: slots that found no free worker
	errs       map[string]int64
	// allocated on first use, then reused; resp only in open loop
	lat, ttfb, resp *hdr.Histogram
}

func (b *opBucket) empty() bool { return b.ops == 0 && b.bytes == 0 && b.dropped == 0 }

func (b *opBucket) reset() {
	b.ops, b.bytes, b.dropped = 0, 0, 0
	clear(b.errs)
	if b.lat != nil {
		b.lat.Reset()
	}
	if b.ttfb != nil {
		b.ttfb.Reset()
	}
	if b.resp != nil {
		b.resp.Reset()
	}
}

// spill is the share of a straddling op's bytes that belongs to an earlier second.
type spill struct {
	sec   int64
	op    Op
	bytes int64
}

// Recorder collects one worker's results. Only its worker and the Series'
// periodic sweep touch it, so its lock is practically uncontended.
type Recorder struct {
	series *Series
	mu     sync.Mutex
	sec    int64 // second the buckets hold; -1 when they hold nothing
	ops    [NumOps]opBucket
	spills []spill
	open   bool // results have an Intended start of their own (open loop)

	firstEnd, lastEnd time.Time
}

// OpenLoop marks the recorder's results as open loop: each one's response
// time (End - Intended) is recorded beside its service time (End - Start).
// Call it before the first Record.
func (r *Recorder) OpenLoop() {
	r.mu.Lock()
	r.open = true
	r.mu.Unlock()
}

// Record adds one result. Its latency and TTFB go into the second in which
// the op ended; its bytes are spread over the seconds it covered.
func (r *Recorder) Record(res *Result) {
	b := r.bucketLocked(res.Op, res.End)
	b.ops++
	b.bytes += r.spreadLocked(res, r.sec)
	if res.Err != nil {
		if b.errs == nil {
			b.errs = make(map[string]int64, 4)
		}
		b.errs[storage.ErrorClass(res.Err)]++
	} else {
		if b.lat == nil {
			b.lat = hdr.New(histLowest, histHighest, histDigits)
		}
		_ = b.lat.RecordValue(micros(res.End.Sub(res.Start))) // clamped to range: cannot fail
		if !res.FirstByte.IsZero() {
			if b.ttfb == nil {
				b.ttfb = hdr.New(histLowest, histHighest, histDigits)
			}
			_ = b.ttfb.RecordValue(micros(res.FirstByte.Sub(res.Start)))
		}
		if r.open {
			if b.resp == nil {
				b.resp = hdr.New(histLowest, histHighest, histDigits)
			}
			_ = b.resp.RecordValue(micros(res.End.Sub(res.Intended)))
		}
	}
	if r.firstEnd.IsZero() {
		r.firstEnd = res.End
	}
	r.lastEnd = res.End
	r.mu.Unlock()
}

// Dropped counts one open-loop slot of op that found no free worker; it
// goes into the second of at (when it was found dropped).
func (r *Recorder) Dropped(op Op, at time.Time) {
	b := r.bucketLocked(op, at)
	b.dropped++
	r.mu.Unlock()
}

// bucketLocked locks the recorder and returns op's bucket for the second
// of t, flushing the buckets of another second first. The caller unlocks.
func (r *Recorder) bucketLocked(op Op, t time.Time) *opBucket {
	sec := int64(t.Sub(r.series.start) / time.Second)
	r.mu.Lock()
	if r.sec != sec && r.sec >= 0 {
		r.flushLocked()
	}
	r.sec = sec
	return &r.ops[op]
}

// spreadLocked puts the bytes of an op that began in an earlier second into
// spills for those seconds and returns the share of the ending second.
func (r *Recorder) spreadLocked(res *Result, endSec int64) int64 {
	startSec := int64(res.Start.Sub(r.series.start) / time.Second)
	if startSec >= endSec || res.Bytes == 0 {
		return res.Bytes
	}
	total := res.End.Sub(res.Start)
	left := res.Bytes
	for s := startSec; s < endSec; s++ {
		from := r.series.start.Add(time.Duration(s) * time.Second)
		if from.Before(res.Start) {
			from = res.Start
		}
		to := r.series.start.Add(time.Duration(s+1) * time.Second)
		share := int64(float64(res.Bytes) * float64(to.Sub(from)) / float64(total))
		if share > 0 {
			r.spills = append(r.spills, spill{sec: s, op: res.Op, bytes: share})
			left -= share
		}
	}
	return left
}

// flushLocked hands the buckets and spills to the series and resets them.
func (r *Recorder) flushLocked() {
	r.series.absorb(r.sec, &r.ops, r.spills)
	for i := range r.ops {
		r.ops[i].reset()
	}
	r.spills = r.spills[:0]
	r.sec = -1
}

// flushIfBefore flushes the recorder if it holds a second earlier than sec.
func (r *Recorder) flushIfBefore(sec int64) {
	r.mu.Lock()
	if r.sec >= 0 && r.sec < sec {
		r.flushLocked()
	}
	r.mu.Unlock()
}

func (r *Recorder) span() (firstEnd, lastEnd time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.firstEnd, r.lastEnd
}
