package replay_test

import (
	"fmt"
	"github.com/objbench/objbench/oplog"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/objbench/objbench/replay"
)

// sliceSource feeds records from a slice.
type sliceSource struct {
	recs []replay.Record
	i    int
}

func (s *sliceSource) Next() bool             { s.i++; return s.i <= len(s.recs) }
func (s *sliceSource) Record() *replay.Record { return &s.recs[s.i-1] }
func (s *sliceSource) Err() error             { return nil }

func TestScheduleOrdersWithinTheWindow(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 5000
	var recs []replay.Record
	for i := range n {
		// ops every 10 ms, logged up to 2 s out of order
		jitter := time.Duration(rng.Int64N(int64(2 * time.Second)))
		recs = append(recs, replay.Record{Record: oplog.Record{Start: t0.Add(time.Duration(i)*10*time.Millisecond - jitter), Key: "k"}})
	}
	s := replay.NewSchedule(&sliceSource{recs: recs}, replay.ScheduleOptions{Window: 3 * time.Second, Speed: 2})
	var prev time.Duration
	count := 0
	first := recs[0].Start
	for _, r := range recs {
		if r.Start.Before(first) {
			first = r.Start
		}
	}
	for s.Next() {
		op := s.Op()
		if op.Offset < prev {
			t.Fatalf("op %d at %v, before the previous at %v", count, op.Offset, prev)
		}
		if want := op.Start.Sub(first) / 2; op.Offset != want {
			t.Fatalf("op %d at %v, want (time - first)/speed = %v", count, op.Offset, want)
		}
		prev = op.Offset
		count++
	}
	if count != n || s.Late() != 0 || !s.Start().Equal(first) {
		t.Errorf("%d ops (want %d), %d late (want 0), start %v (want %v)", count, n, s.Late(), s.Start(), first)
	}
}

func TestScheduleIssuesTooLateRecordsAtOnce(t *testing.T) {
	recs := []replay.Record{
		{Record: oplog.Record{Start: t0}}, {Record: oplog.Record{Start: t0.Add(time.Second)}}, {Record: oplog.Record{Start: t0.Add(30 * time.Second)}}, {Record: oplog.Record{Start: t0.Add(31 * time.Second)}},
		{Record: oplog.Record{Start: t0.Add(40 * time.Second)}}, {Record: oplog.Record{Start: t0.Add(2 * time.Second)}}, // 2 s: read after 31 s went out
	}
	s := replay.NewSchedule(&sliceSource{recs: recs}, replay.ScheduleOptions{Window: 5 * time.Second})
	var offs []time.Duration
	for s.Next() {
		offs = append(offs, s.Op().Offset)
	}
	want := []time.Duration{0, time.Second, 30 * time.Second, 31 * time.Second, 31 * time.Second, 40 * time.Second}
	if len(offs) != len(want) || s.Late() != 1 {
		t.Fatalf("offsets %v (late %d), want %v (late 1)", offs, s.Late(), want)
	}
	for i := range want {
		if offs[i] != want[i] {
			t.Errorf("offsets %v, want %v", offs, want)
		}
	}
}

func TestScheduleHoldsAtMostMaxHeld(t *testing.T) {
	var recs []replay.Record
	for i := range 1000 {
		recs = append(recs, replay.Record{Record: oplog.Record{Start: t0.Add(time.Duration(1000-i) * time.Millisecond)}}) // reversed
	}
	src := &sliceSource{recs: recs}
	s := replay.NewSchedule(src, replay.ScheduleOptions{Window: time.Hour, MaxHeld: 10})
	if !s.Next() {
		t.Fatal("no op")
	}
	if src.i > 10 {
		t.Errorf("read %d records before the first op, want at most MaxHeld = 10", src.i)
	}
}

// An access log's requests of one second all carry that second: they are
// spread evenly over it in log order (a PUT before the HEAD of its key
// stays before it), or, with Burst, all issued at the second.
func TestScheduleSpreadsASecondInLogOrder(t *testing.T) {
	var recs []replay.Record
	add := func(sec int, key string) {
		recs = append(recs, replay.Record{Record: oplog.Record{Start: t0.Add(time.Duration(sec) * time.Second), Key: key}, Resolution: time.Second})
	}
	add(0, "put k")
	add(0, "head k")
	add(0, "get k")
	add(0, "delete k")
	add(1, "a")
	add(1, "b")
	add(3, "c")
	recs = append(recs, replay.Record{Record: oplog.Record{Start: t0.Add(3500 * time.Millisecond), Key: "exact"}}) // a source with exact times is left alone
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	for _, c := range []struct {
		o    replay.ScheduleOptions
		want []time.Duration
	}{
		{replay.ScheduleOptions{}, ms(0, 250, 500, 750, 1000, 1500, 3000, 3500)},
		{replay.ScheduleOptions{Speed: 2}, ms(0, 125, 250, 375, 500, 750, 1500, 1750)},
		{replay.ScheduleOptions{Burst: true}, ms(0, 0, 0, 0, 1000, 1000, 3000, 3500)},
	} {
		s := replay.NewSchedule(&sliceSource{recs: recs}, c.o)
		var got []time.Duration
		for i := 0; s.Next(); i++ {
			if op := s.Op(); op.Key != recs[i].Key {
				t.Errorf("%+v: op %d is %q, want %q: the log's order", c.o, i, op.Key, recs[i].Key)
			}
			got = append(got, s.Op().Offset)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) || s.Late() != 0 {
			t.Errorf("%+v: offsets %v (%d late), want %v", c.o, got, s.Late(), c.want)
		}
	}
}
