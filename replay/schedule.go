package replay

import "time"

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
	// Burst issues the requests of one tick of a coarse source (the
	// second of an access log, Record.Resolution) all at that tick.
	// Without it they are spread evenly over the tick in log order: the
	// i-th of n at tick + i/n of it.
	Burst bool
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
	// ticks counts the held records of each coarse tick (by its time, ns
	// since the epoch); tick is the one being spread.
	ticks map[int64]int
	tick  struct {
		t  int64
		i  int
		on bool
	}
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
	return &Schedule{src: src, o: o, ticks: map[int64]int{}}
}

// Next places the next op; false at the end of the trace or on an error
// of the source (Err).
func (s *Schedule) Next() bool {
	s.fill()
	if s.held.Len() == 0 {
		return false
	}
	e := s.held.pop()
	rec := &s.held.recs[e.slot]
	if !s.started {
		s.base, s.started = rec.Start, true
	}
	at, spread := s.spread(e.t, rec)
	off := time.Duration(float64(at.Sub(s.base)) / s.o.Speed)
	if off < s.last {
		// Later than the window allowed: issue it now rather than
		// going back in time. (A tick that gained a record while spread
		// closes up a little, too: that is not late.)
		off = s.last
		if !spread {
			s.late++
		}
	}
	s.last = off
	s.op = Op{Offset: off, Record: *rec}
	s.held.free = append(s.held.free, e.slot)
	return true
}

// fill reads records until the earliest held one is a window older than
// the newest read, the bound is reached or the source ends.
func (s *Schedule) fill() {
	for !s.done && s.held.Len() < s.o.MaxHeld {
		if s.held.Len() > 0 && s.newest.Sub(s.held.recs[s.held.es[0].slot].Start) >= s.o.Window {
			return
		}
		if !s.src.Next() {
			s.done = true
			return
		}
		r := s.src.Record()
		if r.Start.After(s.newest) {
			s.newest = r.Start
		}
		s.seq++
		s.held.push(r, s.seq)
		if r.Resolution > 0 {
			s.ticks[r.Start.UnixNano()]++
		}
	}
}

// spread is when a popped record is due: its time, or, for a record of a
// coarse tick, its place among the tick's records spread over the tick in
// log order (the heap keeps the order of records of one time).
func (s *Schedule) spread(t int64, rec *Record) (time.Time, bool) {
	res := rec.Resolution
	if res <= 0 {
		return rec.Start, false
	}
	left := s.ticks[t] // this record and the others of its tick still held
	if left <= 1 {
		delete(s.ticks, t)
	} else {
		s.ticks[t] = left - 1
	}
	if s.o.Burst {
		return rec.Start, false
	}
	if !s.tick.on || s.tick.t != t {
		s.tick.t, s.tick.i, s.tick.on = t, 0, true
	}
	i := s.tick.i
	s.tick.i++
	return rec.Start.Add(time.Duration(float64(res) * float64(i) / float64(i+left))), true
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

// recordHeap orders held records by time, then by arrival. The heap
// moves small entries; the records stay in their slots (reused), so a
// nearly ordered log costs a few compares per record, not copies of it.
type recordHeap struct {
	es   []heldEntry
	recs []Record // slots
	free []int32  // slots to reuse
}

type heldEntry struct {
	t    int64  // the record's time, ns since the epoch
	seq  uint64 // records of the same time keep their order
	slot int32
}

func (h *recordHeap) Len() int { return len(h.es) }

func (e heldEntry) before(o heldEntry) bool { return e.t < o.t || e.t == o.t && e.seq < o.seq }

func (h *recordHeap) push(r *Record, seq uint64) {
	var slot int32
	if n := len(h.free); n > 0 {
		slot, h.free = h.free[n-1], h.free[:n-1]
		h.recs[slot] = *r
	} else {
		slot = int32(len(h.recs))
		h.recs = append(h.recs, *r)
	}
	e := heldEntry{t: r.Start.UnixNano(), seq: seq, slot: slot}
	h.es = append(h.es, e)
	i := len(h.es) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !e.before(h.es[p]) {
			break
		}
		h.es[i] = h.es[p]
		i = p
	}
	h.es[i] = e
}

// pop removes the earliest entry; its slot stays valid until freed.
func (h *recordHeap) pop() heldEntry {
	top := h.es[0]
	n := len(h.es) - 1
	last := h.es[n]
	h.es = h.es[:n]
	if n == 0 {
		return top
	}
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h.es[c+1].before(h.es[c]) {
			c++
		}
		if !h.es[c].before(last) {
			break
		}
		h.es[i] = h.es[c]
		i = c
	}
	h.es[i] = last
	return top
}
