package replay

import (
	"container/heap"
	"time"
)

// Source is a stream of records: a *Reader, or anything that filters one.
type Source interface {
	Next() bool
	Record() *Record
	Err() error
}

// Op is one request of a trace placed on the replay's clock.
type Op struct {
	// Offset is when to issue the op, from the first op of the trace,
	// already divided by the speed-up.
	Offset time.Duration
	Record
}

// ScheduleOptions shape a Schedule; the zero value replays as recorded.
type ScheduleOptions struct {
	// Speed divides every offset: 2 replays twice as fast; 0 is 1.
	Speed float64
	// Window is how far out of time order records may come and still be
	// put in order (0: 10 s). Logs are written as requests end, and
	// access logs are delivered in batches, so neighbours are often
	// swapped.
	Window time.Duration
	// MaxHeld bounds the records held to sort them (0: 65,536, some
	// 15 MiB); with it reached the earliest goes out even if the window
	// has not passed.
	MaxHeld int
}

// Schedule turns a stream of records into ops in time order with their
// offsets from the first. It holds at most a window of records.
type Schedule struct {
	src     Source
	o       ScheduleOptions
	held    recordHeap
	seq     uint64
	newest  time.Time
	base    time.Time
	started bool
	last    time.Duration
	op      Op
	late    int64
	done    bool
}

// NewSchedule orders the records of src.
func NewSchedule(src Source, o ScheduleOptions) *Schedule {
	if o.Speed <= 0 {
		o.Speed = 1
	}
	if o.Window <= 0 {
		o.Window = 10 * time.Second
	}
	if o.MaxHeld <= 0 {
		o.MaxHeld = 1 << 16
	}
	return &Schedule{src: src, o: o}
}

// Next places the next op; false at the end of the trace or on an error
// of the source (Err).
func (s *Schedule) Next() bool {
	s.fill()
	if s.held.Len() == 0 {
		return false
	}
	h := heap.Pop(&s.held).(held)
	if !s.started {
		s.base, s.started = h.rec.Time, true
	}
	off := time.Duration(float64(h.rec.Time.Sub(s.base)) / s.o.Speed)
	if off < s.last {
		// Later than the window allowed: issue it now rather than
		// going back in time.
		off = s.last
		s.late++
	}
	s.last = off
	s.op = Op{Offset: off, Record: h.rec}
	return true
}

// fill reads records until the earliest held one is a window older than
// the newest read, the bound is reached or the source ends.
func (s *Schedule) fill() {
	for !s.done && s.held.Len() < s.o.MaxHeld {
		if s.held.Len() > 0 && s.newest.Sub(s.held.recs[0].rec.Time) >= s.o.Window {
			return
		}
		if !s.src.Next() {
			s.done = true
			return
		}
		r := s.src.Record()
		if r.Time.After(s.newest) {
			s.newest = r.Time
		}
		s.seq++
		heap.Push(&s.held, held{rec: *r, seq: s.seq})
	}
}

// Op is the op Next placed; it is overwritten by the next call.
func (s *Schedule) Op() *Op { return &s.op }

// Start is the time of the trace's first op, the origin of the offsets.
func (s *Schedule) Start() time.Time { return s.base }

// Late counts the records that came more than the window out of order and
// were issued as soon as they were read instead.
func (s *Schedule) Late() int64 { return s.late }

// Err is the source's error, if it stopped on one.
func (s *Schedule) Err() error { return s.src.Err() }

type held struct {
	rec Record
	seq uint64 // records of the same time keep their order
}

type recordHeap struct{ recs []held }

func (h *recordHeap) Len() int { return len(h.recs) }
func (h *recordHeap) Less(i, j int) bool {
	a, b := &h.recs[i], &h.recs[j]
	if !a.rec.Time.Equal(b.rec.Time) {
		return a.rec.Time.Before(b.rec.Time)
	}
	return a.seq < b.seq
}
func (h *recordHeap) Swap(i, j int) { h.recs[i], h.recs[j] = h.recs[j], h.recs[i] }
func (h *recordHeap) Push(x any)    { h.recs = append(h.recs, x.(held)) }
func (h *recordHeap) Pop() any {
	n := len(h.recs) - 1
	x := h.recs[n]
	h.recs[n] = held{}
	h.recs = h.recs[:n]
	return x
}
