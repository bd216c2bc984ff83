package metrics

import (
	"math"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Second is one second of one step as stored in the result file. T counts
// seconds from the step's start.
type Second struct {
	T   int64      `json:"t"`
	Ops []OpSecond `json:"ops"`
}

// OpSecond is what one op did in one second: ops that ended in it, bytes
// moved in it, errors by class, and encoded HDR histograms (microseconds,
// base64 V2 compressed) of successful ops' total latency and TTFB. Open-loop
// streams add Response, the latency from each op's intended start, and
// Dropped, the slots of the schedule no worker was free to issue (not ops:
// they count in neither Ops nor Errors).
type OpSecond struct {
	Op       string           `json:"op"`
	Ops      int64            `json:"ops"`
	Bytes    int64            `json:"bytes"`
	Errors   map[string]int64 `json:"errors,omitempty"`
	Latency  string           `json:"latency_us,omitempty"`
	TTFB     string           `json:"ttfb_us,omitempty"`
	Response string           `json:"response_us,omitempty"`
	Dropped  int64            `json:"dropped,omitempty"`
}

// Window is the common measurement window of a step, in seconds from its
// start: from when every worker had finished its first op to when the
// first worker stopped.
type Window struct {
	Start float64 `json:"start_s"`
	End   float64 `json:"end_s"`
}

// Duration is the window's length in seconds.
func (w Window) Duration() float64 { return w.End - w.Start }

// secState is one second being merged across workers.
type secState struct {
	ops       [NumOps]opBucket
	finalized bool
	encoded   [NumOps][3]string // latency, TTFB, response
}

// Series merges the recorders of one step into per-second records.
type Series struct {
	start     time.Time
	mu        sync.Mutex
	recorders []*Recorder
	secs      []*secState // index = second since start
	finalTo   int64       // seconds below this are finalized
}

// NewSeries starts a series whose second 0 begins at start.
func NewSeries(start time.Time) *Series { return &Series{start: start} }

// Start is the instant second 0 begins.
func (s *Series) Start() time.Time { return s.start }

// NewRecorder returns a recorder for one worker.
func (s *Series) NewRecorder() *Recorder {
	r := &Recorder{series: s, sec: -1}
	s.mu.Lock()
	s.recorders = append(s.recorders, r)
	s.mu.Unlock()
	return r
}

func (s *Series) sec(i int64) *secState {
	for int64(len(s.secs)) <= i {
		s.secs = append(s.secs, &secState{})
	}
	return s.secs[i]
}

// absorb merges a worker's second (and its spills) into the series.
func (s *Series) absorb(sec int64, ops *[NumOps]opBucket, spills []spill) {
	s.mu.Lock()
	defer s.mu.Unlock()
	target := max(sec, s.finalTo) // a straggler after finalization lands in the oldest open second
	st := s.sec(target)
	for i := range ops {
		src := &ops[i]
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
		dst.lat = mergeInto(dst.lat, src.lat)
		dst.ttfb = mergeInto(dst.ttfb, src.ttfb)
		dst.resp = mergeInto(dst.resp, src.resp)
	}
	for _, sp := range spills { // plain counters stay writable after finalization
		s.sec(max(sp.sec, 0)).ops[sp.op].bytes += sp.bytes
	}
}

func mergeInto(dst, src *hdr.Histogram) *hdr.Histogram {
	if src == nil || src.TotalCount() == 0 {
		return dst
	}
	if dst == nil {
		dst = hdr.New(histLowest, histHighest, histDigits)
	}
	dst.Merge(src)
	return dst
}

// Sweep collects what workers hold for seconds before now and finalizes
// (encodes, frees) seconds that can no longer change. Call it about once a
// second while the step runs.
func (s *Series) Sweep(now time.Time) {
	nowSec := int64(now.Sub(s.start) / time.Second)
	s.flushRecorders(nowSec)
	s.finalize(nowSec - 1) // one second of slack for results being recorded right now
}

// Finalized returns the seconds from second `from` on that have been
// finalized (their ops, errors and latencies no longer change), so a caller
// can watch a step while it runs. Bytes of a second may still grow by a few
// late spills.
func (s *Series) Finalized(from int64) []Second {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Second
	for i := max(from, 0); i < s.finalTo; i++ {
		out = append(out, s.secs[i].record(i))
	}
	return out
}

// Finish flushes every recorder, finalizes all seconds and returns them with
// the step's common window.
func (s *Series) Finish() ([]Second, Window) {
	s.flushRecorders(math.MaxInt64)
	s.finalize(math.MaxInt64)
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Second, 0, len(s.secs))
	for i, st := range s.secs {
		out = append(out, st.record(int64(i)))
	}
	return out, s.window()
}

func (s *Series) flushRecorders(beforeSec int64) {
	s.mu.Lock()
	rs := s.recorders
	s.mu.Unlock()
	for _, r := range rs {
		r.flushIfBefore(beforeSec)
	}
}

func (s *Series) finalize(beforeSec int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := s.finalTo; i < int64(len(s.secs)) && i < beforeSec; i++ {
		st := s.secs[i]
		for op := range st.ops {
			b := &st.ops[op]
			st.encoded[op][0] = encode(b.lat)
			st.encoded[op][1] = encode(b.ttfb)
			st.encoded[op][2] = encode(b.resp)
			b.lat, b.ttfb, b.resp = nil, nil, nil
		}
		st.finalized = true
		s.finalTo = i + 1
	}
}

func encode(h *hdr.Histogram) string {
	if h == nil || h.TotalCount() == 0 {
		return ""
	}
	b, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil { // only on an unknown version constant
		panic(err)
	}
	return string(b)
}

func (st *secState) record(t int64) Second {
	sec := Second{T: t}
	for op := range st.ops {
		b := &st.ops[op]
		if b.empty() && len(b.errs) == 0 {
			continue
		}
		sec.Ops = append(sec.Ops, OpSecond{
			Op: Op(op).String(), Ops: b.ops, Bytes: b.bytes, Errors: b.errs,
			Latency: st.encoded[op][0], TTFB: st.encoded[op][1], Response: st.encoded[op][2], Dropped: b.dropped,
		})
	}
	return sec
}

// window must be called with s.mu held.
func (s *Series) window() Window {
	var first, last time.Time
	var lastEnd time.Time
	for _, r := range s.recorders {
		f, l := r.span()
		if f.IsZero() {
			continue
		}
		if f.After(first) {
			first = f
		}
		if last.IsZero() || l.Before(last) {
			last = l
		}
		if l.After(lastEnd) {
			lastEnd = l
		}
	}
	w := Window{Start: first.Sub(s.start).Seconds(), End: last.Sub(s.start).Seconds()}
	if first.IsZero() {
		return Window{}
	}
	if w.End <= w.Start { // a worker did a single op: fall back to the whole step
		w = Window{Start: 0, End: lastEnd.Sub(s.start).Seconds()}
	}
	return w
}
