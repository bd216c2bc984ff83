package plan

import (
	"errors"
	"fmt"
	"hash/maphash"
	"sort"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/replay"
	"github.com/objbench/objbench/result"
)

// Options say what to replay and how.
type Options struct {
	Paths  []string
	Format replay.Format
	Strict bool
	// LeaveStages leaves out an op log's steps of these stages
	// (replay.Options.LeaveStages).
	LeaveStages []string
	// Speed divides the trace's offsets (2: twice as fast); 0 replays as
	// fast as the workers allow.
	Speed float64
	// From and To slice the trace by offset from its first record (To 0:
	// to the end); Window is how the slice was given, for the result.
	From, To time.Duration
	Window   string
	// Ops replays at most this many ops (0: all).
	Ops int64
	// Namespace is the run's ("objbench/RUN-ID/"); keys go below
	// Namespace+"replay/".
	Namespace string
	Keys      replay.KeyMapOptions
	// DefaultSize is the size of an object the trace reads or writes
	// without saying how large it is.
	DefaultSize int64
	// Reorder is how far out of time order records may come (0: 10 s).
	Reorder time.Duration
	// Burst issues the requests of one second of a log with whole-second
	// times (access logs, CloudTrail) all at that second, instead of
	// spread over it in log order (replay.ScheduleOptions.Burst).
	Burst bool
	// Loop is how the requests are paced (LoopAuto: as the trace was).
	Loop Loop
	// Concurrency is the workers started at once (open loop: more start
	// as slots find them busy, up to MaxWorkers; closed loop and at full
	// speed: all). 0: the trace's own in a closed loop, else
	// DefaultConcurrency.
	Concurrency, MaxWorkers int
	// LookAhead bounds the objects read first whose size the trace has
	// not yet given (a HEAD, a DELETE) that wait for a later record of
	// theirs to give it (0: 65,536); past it, the oldest is written at
	// DefaultSize.
	LookAhead int
}

// Prefix is where a replay's keys go below the run's namespace.
const Prefix = "replay/"

// Plan is a trace read once: what to prepare, and how to replay it.
type Plan struct {
	o        Options
	keys     *replay.KeyMap
	prep     *prepareList
	counts   [metrics.NumOps]int64
	lat      [metrics.NumOps]*hdr.Histogram
	ttfb     [metrics.NumOps]*hdr.Histogram
	issued   int64
	span     time.Duration // from the first replayed op to the last, at speed 1
	skipped  map[string]int64
	late     int64
	peak     int64 // the most requests in one second of the log
	rangeLen int64 // the longest range read
	pace     pace
	// defaulted counts the objects prepared at DefaultSize: the trace
	// never said how large they are.
	defaulted int64
	// left, during the first pass, is handed the records of left-out
	// steps (replay.Options.Left).
	left func(*replay.Record)
}

// New reads the trace once. An unreadable trace, or --strict and an entry
// that cannot be replayed, is an error; so is a trace with nothing to
// replay.
func New(o Options) (*Plan, error) {
	if o.DefaultSize <= 0 {
		o.DefaultSize = 64 << 10
	}
	km, err := replay.NewKeyMap(o.Namespace+Prefix, o.Keys)
	if err != nil {
		return nil, err
	}
	prep, err := newPrepareList()
	if err != nil {
		return nil, err
	}
	p := &Plan{o: o, keys: km, skipped: map[string]int64{}, prep: prep}
	// The keys seen so far, by a 64-bit hash: some 20 bytes a key rather
	// than the key itself. Two keys of one log sharing a hash (odds of
	// about n²/2⁶⁵: one in 10⁶ at 7 million keys) would leave the second
	// unprepared, so a read of it fails as a 404.
	seen := map[uint64]struct{}{}
	seed := maphash.MakeSeed()
	sz := newSizer(o.DefaultSize, o.LookAhead, prep.add)
	p.left = func(rec *replay.Record) {
		if rec.Op != metrics.OpList {
			sz.left(maphash.String(seed, p.keys.Key(rec.Bucket, rec.Key)), rec)
		}
	}
	sec, inSec := int64(-1), int64(0)
	err = p.walk(func(op loadgen.ReplayOp, rec *replay.Record, offset time.Duration) {
		if s := int64(offset / time.Second); s != sec {
			sec, inSec = s, 0
		}
		inSec++
		p.peak = max(p.peak, inSec)
		p.pace.add(rec, offset)
		p.counts[op.Op]++
		p.issued++
		p.rangeLen = max(p.rangeLen, op.Range.Length)
		if rec.Latency > 0 {
			p.lat[op.Op] = record(p.lat[op.Op], rec.Latency)
		}
		if rec.TTFB > 0 {
			p.ttfb[op.Op] = record(p.ttfb[op.Op], rec.TTFB)
		}
		if op.Op == metrics.OpList {
			return
		}
		h := maphash.String(seed, op.Key)
		if _, ok := seen[h]; ok {
			sz.later(h, op, rec)
			return
		}
		seen[h] = struct{}{}
		if reads(op.Op) && rec.OK() {
			// Read before any write: it must exist when the op comes, as
			// it did where the trace was recorded.
			sz.first(h, op, rec)
		}
	}, func(late int64) { p.late = late })
	p.left = nil
	sz.finish()
	p.defaulted = sz.defaulted
	if err == nil {
		err = p.prep.finish()
	}
	if err == nil && p.issued == 0 {
		err = errors.New("the trace has no op to replay" + p.skipNote())
	}
	if err != nil {
		p.prep.remove()
		return nil, err
	}
	return p, nil
}

func reads(op metrics.Op) bool {
	switch op {
	case metrics.OpGet, metrics.OpRangeGet, metrics.OpStat, metrics.OpDelete:
		return true
	}
	return false
}

func record(h *hdr.Histogram, d time.Duration) *hdr.Histogram {
	if h == nil {
		h = result.NewHistogram()
	}
	_ = h.RecordValue(max(d.Microseconds(), 1))
	return h
}

func (p *Plan) skipNote() string {
	if len(p.skipped) == 0 {
		return ""
	}
	return fmt.Sprintf(" (%s)", strings.Join(p.SkippedLines(), "; "))
}

// SkippedLines are the skip counts as "N reason" lines, most first.
func (p *Plan) SkippedLines() []string {
	type kv struct {
		k string
		n int64
	}
	var all []kv
	for k, n := range p.skipped {
		all = append(all, kv{k, n})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].n > all[j].n || all[i].n == all[j].n && all[i].k < all[j].k })
	out := make([]string, len(all))
	for i, e := range all {
		out[i] = fmt.Sprintf("%d %s", e.n, e.k)
	}
	return out
}

// Prepared is how many objects the replay writes first.
func (p *Plan) Prepared() int64 { return p.prep.n }

// DefaultSized is how many of them are written at Options.DefaultSize:
// the trace never said how large they are.
func (p *Plan) DefaultSized() int64 { return p.defaulted }

// Close removes the plan's temporary file.
func (p *Plan) Close() { p.prep.remove() }

// Issued is the ops the replay will issue.
func (p *Plan) Issued() int64 { return p.issued }

// Workers is how many workers the replay may need: its peak rate (at its
// speed) times horizon, the longest a request may take, at least the
// workers started at once and at most loadgen.DefaultWorkerCap (or
// Options.MaxWorkers when set). Closed loop and at full speed: the
// workers started.
func (p *Plan) Workers(horizon time.Duration) int {
	start := p.Concurrency()
	switch {
	case p.Loop() != LoopOpen:
		return start
	case p.o.MaxWorkers > 0:
		return p.o.MaxWorkers
	}
	if horizon <= 0 {
		horizon = loadgen.DefaultOpenLoopHorizon
	}
	need := float64(p.peak) * p.o.Speed * horizon.Seconds()
	return int(max(min(need, loadgen.DefaultWorkerCap), float64(start)))
}

// Span is the replayed slice's length in the trace's time (speed 1).
func (p *Plan) Span() time.Duration { return p.span }
