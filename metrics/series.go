package metrics

import (
	"math"
	"runtime"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/objbench/objbench/result"
)

// secState is one second being merged across shards.
type secState struct {
	ops       [NumOps]opBucket
	finalized bool
	encoded   [NumOps][3]string // latency, TTFB, response
}

// Series merges the records of one stream in one step into per-second
// records. Its memory grows with seconds and ops, not with workers.
type Series struct {
	start     time.Time
	mu        sync.Mutex // guards what follows, not the shards
	shards    []*shard
	recorders []*Recorder
	secs      []*secState // index = second since start
	finalTo   int64       // seconds below this are finalized
	phases    [phaseShards]phaseShard
}

// NewSeries starts a series whose second 0 begins at start.
func NewSeries(start time.Time) *Series { return &Series{start: start} }

// Start is the instant second 0 begins.
func (s *Series) Start() time.Time { return s.start }

// maxShards bounds the shards workers record into: enough that workers on
// different CPUs rarely meet on a lock, few enough that thousands of
// workers cost no more memory than a handful.
func maxShards() int { return max(4, 2*runtime.GOMAXPROCS(0)) }

// NewDropRecorder returns a recorder for an open-loop dispatcher: it
// counts dropped slots and is no worker, so it has no part in the window.
func (s *Series) NewDropRecorder() *Recorder { return s.newRecorder(true) }

// NewRecorder returns a recorder for one worker.
func (s *Series) NewRecorder() *Recorder { return s.newRecorder(false) }

func (s *Series) newRecorder(spanless bool) *Recorder {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.recorders)
	if n < maxShards() {
		sh := &shard{series: s}
		sh.slots[0].sec, sh.slots[1].sec = -1, -1
		s.shards = append(s.shards, sh)
	}
	r := &Recorder{sh: s.shards[n%len(s.shards)], ph: &s.phases[n%phaseShards], spanless: spanless}
	s.recorders = append(s.recorders, r)
	return r
}

func (s *Series) sec(i int64) *secState {
	for int64(len(s.secs)) <= i {
		s.secs = append(s.secs, &secState{})
	}
	return s.secs[i]
}

// absorb merges a shard's slot into the series and empties the slot.
// Counters go to the slot's own second even once it is finalized;
// histograms of a finalized second go to the oldest open one.
func (s *Series) absorb(slot *secSlot) {
	s.mu.Lock()
	st := s.sec(slot.sec)
	hist := st
	if st.finalized {
		hist = s.sec(s.finalTo)
	}
	for i := range slot.ops {
		src := &slot.ops[i]
		if src.empty() {
			continue
		}
		dst := &st.ops[i]
		dst.ops += src.ops
		dst.bytes += src.bytes
		dst.dropped += src.dropped
		for c, n := range src.errs {
			if dst.errs == nil {
				dst.errs = map[string]int64{}
			}
			dst.errs[c] += n
		}
		if src.ticks != nil {
			if dst.ticks == nil {
				dst.ticks = new(result.TickCounts)
			}
			for k, c := range src.ticks {
				dst.ticks[k].OK += c.OK
				dst.ticks[k].Bytes += c.Bytes
			}
		}
		h := &hist.ops[i]
		h.lat = mergeInto(h.lat, src.lat)
		h.ttfb = mergeInto(h.ttfb, src.ttfb)
		h.resp = mergeInto(h.resp, src.resp)
		src.reset()
	}
	s.mu.Unlock()
	slot.sec = -1
}

func mergeInto(dst, src *hdr.Histogram) *hdr.Histogram {
	if src == nil || src.TotalCount() == 0 {
		return dst
	}
	if dst == nil {
		dst = result.NewHistogram()
	}
	dst.Merge(src)
	return dst
}

// Sweep collects what the shards hold for seconds before now and
// finalizes (encodes, frees) seconds that can no longer change. Call it
// about once a second while the step runs.
func (s *Series) Sweep(now time.Time) {
	nowSec := int64(now.Sub(s.start) / time.Second)
	s.flushShards(nowSec)
	s.finalize(nowSec - 1) // one second of slack for results being recorded right now
	s.dropInnerTicks(nowSec)
}

// Finalized returns the seconds from second `from` on that have been
// finalized (their histograms no longer change), so a caller can watch a
// step while it runs. A late op may still add to a finalized second's
// counters.
func (s *Series) Finalized(from int64) []result.Second {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []result.Second
	for i := max(from, 0); i < s.finalTo; i++ {
		out = append(out, s.secs[i].record(i, false))
	}
	return out
}

// Finish collects every shard, finalizes all seconds and returns them,
// with the tick counts still held, and the step's common window. Call it
// once the workers are done.
func (s *Series) Finish() ([]result.Second, result.Window) {
	s.flushShards(math.MaxInt64)
	s.finalize(math.MaxInt64)
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]result.Second, 0, len(s.secs))
	for i, st := range s.secs {
		out = append(out, st.record(int64(i), true))
	}
	return out, s.window()
}

func (s *Series) flushShards(beforeSec int64) {
	s.mu.Lock()
	shards := s.shards
	s.mu.Unlock()
	for _, sh := range shards {
		sh.flushBefore(beforeSec)
	}
}

func (s *Series) finalize(beforeSec int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := s.finalTo; i < int64(len(s.secs)) && i < beforeSec; i++ {
		st := s.secs[i]
		for op := range st.ops {
			b := &st.ops[op]
			st.encoded[op][0] = result.EncodeHistogram(b.lat)
			st.encoded[op][1] = result.EncodeHistogram(b.ttfb)
			st.encoded[op][2] = result.EncodeHistogram(b.resp)
			b.lat, b.ttfb, b.resp = nil, nil, nil
		}
		st.finalized = true
		s.finalTo = i + 1
	}
}

// dropInnerTicks frees the ticks of finalized seconds that can lie at
// neither edge of the window: the window starts by the latest first op end
// (known once every worker has done an op) and ends no earlier than the
// earliest last op end so far, which only grows.
func (s *Series) dropInnerTicks(nowSec int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var first, last time.Duration
	n := 0
	for _, r := range s.recorders {
		if r.spanless {
			continue
		}
		f, l, ok := r.span()
		if !ok {
			return // a worker has not started: the window's start is not known
		}
		if n == 0 || l < last {
			last = l
		}
		first = max(first, f)
		n++
	}
	if n == 0 {
		return
	}
	from := int64(first/time.Second) + result.EdgeSeconds
	to := min(s.finalTo, nowSec, int64(last/time.Second)-result.EdgeSeconds)
	for i := from; i < to; i++ {
		for op := range s.secs[i].ops {
			s.secs[i].ops[op].ticks = nil
		}
	}
}

func (st *secState) record(t int64, ticks bool) result.Second {
	sec := result.Second{T: t}
	for op := range st.ops {
		b := &st.ops[op]
		if b.empty() {
			continue
		}
		o := result.OpSecond{Op: Op(op).String(), Ops: b.ops, Bytes: b.bytes, Errors: b.errs,
			Latency: st.encoded[op][0], TTFB: st.encoded[op][1], Response: st.encoded[op][2], Dropped: b.dropped}
		if ticks {
			o.Ticks = b.ticks.Export()
		}
		sec.Ops = append(sec.Ops, o)
	}
	return sec
}

// window is the closed-loop window on ticks: from the latest first op end
// to the earliest last op end; when that holds no whole tick (a worker did
// a single op), the whole step up to the last op end. Called with s.mu held.
func (s *Series) window() result.Window {
	var first, last, lastEnd time.Duration
	n := 0
	for _, r := range s.recorders {
		f, l, ok := r.span()
		if !ok || r.spanless {
			continue
		}
		if n == 0 || l < last {
			last = l
		}
		first, lastEnd = max(first, f), max(lastEnd, l)
		n++
	}
	if n == 0 {
		return result.Window{}
	}
	if w := result.SnapWindow(result.Window{Start: first.Seconds(), End: last.Seconds()}); w.Duration() > 0 {
		return w
	}
	return spanTo(lastEnd)
}

// spanTo is the window from the step's start through the tick of end.
func spanTo(end time.Duration) result.Window {
	return result.Window{Start: 0, End: result.TickSeconds(int64(end/result.Tick) + 1)}
}

// Span is the window from the step's start through the tick of the last
// op's end: the whole step, for streams whose ops are not a steady loop
// (a script's: a checkpoint's ranks, a training epoch), where the common
// window of the workers' first and last ops would hold next to nothing.
// Call it after Finish.
func (s *Series) Span() result.Window {
	s.mu.Lock()
	defer s.mu.Unlock()
	var lastEnd time.Duration
	n := 0
	for _, r := range s.recorders {
		if _, l, ok := r.span(); ok && !r.spanless {
			lastEnd, n = max(lastEnd, l), n+1
		}
	}
	if n == 0 {
		return result.Window{}
	}
	return spanTo(lastEnd)
}
