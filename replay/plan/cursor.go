package plan

import (
	"fmt"
	"strings"
	"time"

	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/replay"
)

// cursor walks the replayed slice of a trace: records in time order, cut
// to the window and the op limit, keys mapped.
type cursor struct {
	p     *Plan
	r     *replay.Reader
	s     *replay.Schedule
	n     int64
	first time.Duration
	began bool
	skip  func(reason string)
	err   error
}

func (p *Plan) open(skip func(string)) (*cursor, error) {
	r, err := replay.Open(p.o.Paths, replay.Options{Format: p.o.Format, Strict: p.o.Strict, LeaveStages: p.o.LeaveStages, Left: p.left})
	if err != nil {
		return nil, err
	}
	s := replay.NewSchedule(r, replay.ScheduleOptions{Speed: 1, Window: p.o.Reorder, Burst: p.o.Burst})
	return &cursor{p: p, r: r, s: s, skip: skip}, nil
}

// next is the next op to replay and the record it came from; ok=false at
// the end of the slice or on an error (c.err).
func (c *cursor) next() (op loadgen.ReplayOp, rec *replay.Record, ok bool) {
	o := &c.p.o
	for {
		if o.Ops > 0 && c.n >= o.Ops {
			return op, nil, false
		}
		if !c.s.Next() {
			c.err = c.s.Err()
			return op, nil, false
		}
		so := c.s.Op()
		if so.Offset < o.From {
			c.skip("before --window")
			continue
		}
		if o.To > 0 && so.Offset >= o.To {
			return op, nil, false // in time order: the rest is after it too
		}
		if !replayable(so.Op) {
			c.skip("op not replayed: " + so.Op.String())
			continue
		}
		if !c.began {
			c.first, c.began = so.Offset, true
		}
		c.n++
		rec = &so.Record
		op = loadgen.ReplayOp{Op: so.Op, Key: c.p.key(rec), Size: rec.Size, Range: rec.Range}
		if (op.Op == metrics.OpPut || op.Op == metrics.OpMultipart) && op.Size <= 0 {
			op.Size = max(rec.BytesIn, o.DefaultSize)
		}
		if at := so.Offset - c.first; o.Speed > 0 {
			op.At = time.Duration(float64(at) / o.Speed)
		}
		return op, rec, true
	}
}

func (c *cursor) close() error { return c.r.Close() }

// replayable is whether objbench replays op: the ops whose keys a trace
// gives whole (a copy's source, a batch's keys are not in the logs).
func replayable(op metrics.Op) bool {
	switch op {
	case metrics.OpPut, metrics.OpMultipart, metrics.OpGet, metrics.OpRangeGet, metrics.OpStat, metrics.OpDelete, metrics.OpList:
		return true
	}
	return false
}

// key maps a record's key into the run's namespace; a LIST's prefix maps
// segment by segment, so it still covers the keys below it.
func (p *Plan) key(rec *replay.Record) string {
	if rec.Op != metrics.OpList {
		return p.keys.Key(rec.Bucket, rec.Key)
	}
	pre := strings.TrimSuffix(rec.Key, "/")
	if pre == "" {
		if p.o.Keys.KeepBucket && rec.Bucket != "" {
			return p.keys.Key("", rec.Bucket) + "/"
		}
		return p.o.Namespace + Prefix
	}
	k := p.keys.Key(rec.Bucket, pre)
	if strings.HasSuffix(rec.Key, "/") {
		k += "/"
	}
	return k
}

// walk runs fn over every op of the slice, then reports the late records.
func (p *Plan) walk(fn func(loadgen.ReplayOp, *replay.Record, time.Duration), late func(int64)) error {
	c, err := p.open(func(reason string) { p.skipped[reason]++ })
	if err != nil {
		return err
	}
	defer c.close()
	var last time.Duration
	for {
		op, rec, ok := c.next()
		if !ok {
			break
		}
		last = c.s.Op().Offset
		fn(op, rec, last-c.first)
	}
	if c.err != nil {
		return c.err
	}
	p.span = last - c.first
	st := c.r.Stats()
	for reason, s := range st.Skipped {
		p.skipped[reason] += s.Count
	}
	for reason, s := range st.Left {
		p.skipped[reason+" (left out: --leave-stages)"] += s.Count
	}
	late(c.s.Late())
	return nil
}

// Source streams the slice for the replay (a second pass over the trace);
// close it after the run.
func (p *Plan) Source() (*Source, error) {
	c, err := p.open(func(string) {})
	if err != nil {
		return nil, err
	}
	return &Source{c: c}, nil
}

// Source is a plan's ops as the load generator takes them.
type Source struct{ c *cursor }

// Next is the next op of the trace.
func (s *Source) Next() (loadgen.ReplayOp, bool) {
	op, _, ok := s.c.next()
	return op, ok
}

// Err is what ended the trace early, if anything.
func (s *Source) Err() error {
	if s.c.err != nil {
		return fmt.Errorf("replay: %w", s.c.err)
	}
	return nil
}

// Close closes the trace's files.
func (s *Source) Close() error { return s.c.close() }
