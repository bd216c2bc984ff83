package loadgen

import (
	"context"
	"hash"
	"io"
	"math/rand/v2"
	"time"

	"github.com/objbench/objbench/corpus"
	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/oplog"
	"github.com/objbench/objbench/payload"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/workload"
)

// worker issues one stream's ops one at a time. It owns everything it
// touches per op (payload reader, verifier, trace, range, result), so the
// hot path allocates nothing for payloads.
type worker struct {
	s        *streamRun
	rec      *metrics.Recorder
	rng      *rand.Rand
	body     *payload.Reader
	checks   []*payload.Verifier // per op of the mix
	samplers []opSampler
	prepSize func(i int64) int64 // the size of prepared object i
	trace    storage.Trace
	rg       storage.Range
	parts    []storage.Part
	res      metrics.Result
	back     backoff // after failures to reach the store
	traced   bool    // the op passed its store the trace: its phases are the op's
	url      string  // a presigned GET's URL, signed before the op
	urlErr   error
	ids      []storage.ObjectID // a batch delete's
	id       int
	ownOps   int64 // ops finished and bytes moved, against own limits
	ownBytes int64
	span     workerSpan    // COSBench's rates (cosbenchrate.go)
	md5      hash.Hash     // COSBench's hashCheck (hashcheck.go): its writes' trailers,
	hb       *hashedBody   // their bodies,
	tc       trailerCheck  // and the check of its reads
	slot     *slot         // the open-loop slot being served
	logRec   *oplog.Record // the op log's record, reused (made with the first)
	// A GET sent apart (splitget.go): the task, when it was sent, the
	// answer pending; the runner's job and its end (runners.go).
	cur     task
	started time.Time
	pend    storage.PendingGet
	job     func(*worker)
	jobDone chan struct{}
}

// task is one op to issue.
type task struct {
	op    metrics.Op
	store storage.Store
	key   string
	size  int64  // bytes to write (PUT), or the object's size if known (GET)
	exact bool   // GET: size is the object's exact size, so a short read is a mismatch
	seed  uint64 // payload position: a function of the key
	pool  *keyPool
	check *payload.Verifier // for reads of the op's space
	src   *corpus.Item      // PUT: the bytes to write, instead of generated ones
	def   *opDef            // the mix's op (main stages)
	from  string            // COPY, PART-COPY: the source key
	batch []string          // DELETE-BATCH: the keys
	rg    *storage.Range    // RANGE-GET: the range to read (a replay's), else one is drawn
	turn  turn              // a replay's: its place after the earlier ops of its key
	due   time.Time         // a paced replay's: when the op was due
	// own is the run's record of t's key space in COSBench's key layout
	// (nil: none kept), num the object's number in it (barekeys.go).
	own *ownNumbers
	num int64
}

func newWorker(s *streamRun, id int) *worker {
	w := &worker{
		s:    s,
		id:   id,
		rec:  s.series.NewRecorder(),
		rng:  rand.New(rand.NewPCG(uint64(id)+1, s.work.seed)),
		body: payload.NewReader(s.work.block),
	}
	if s.runners != nil {
		w.jobDone = make(chan struct{}, 1)
	}
	w.prepSize = preparedSizes(s.work.sizes, s.work.sizeSeed)
	for _, d := range s.work.ops {
		w.samplers = append(w.samplers, d.sampler(w.rng, s.run.cfg.Worker))
		w.checks = append(w.checks, payload.NewVerifier(d.check))
	}
	return w
}

// preparedSizes draws prepared object i's size from its own seed, so every
// worker of a split run knows the size of every object any of them wrote.
func preparedSizes(sel workload.Selector, seed uint64) func(i int64) int64 {
	if sel.Kind == workload.SelConst {
		return func(int64) int64 { return sel.Min }
	}
	pcg := rand.NewPCG(seed, 0)
	var idx uint64
	draw := sel.Sampler(rand.New(pcg), func() uint64 { return idx })
	return func(i int64) int64 {
		idx = uint64(i)
		pcg.Seed(seed, uint64(i))
		return draw()
	}
}

// closedLoop issues ops back to back until stop ends, the stream runs out
// of work or reaches a bound. Ops run under s.opCtx, which outlives stop
// by the grace period.
func (w *worker) closedLoop(stop context.Context) {
	s := w.s
	if s.replay.paced() { // ops have a due time: their response time counts from it
		w.rec.OpenLoop()
	}
	for stop.Err() == nil {
		if s.own.set() {
			if cause := w.ownLimit(); cause != "" {
				s.ownDone(cause)
				return
			}
		} else if n := s.issued.Add(1); s.bounds.Ops > 0 && n > s.bounds.Ops {
			s.end.finish("ops")
			return
		}
		if !w.do(time.Time{}) {
			return
		}
	}
}

// openLoop serves the slots the stream's dispatcher hands out, starting
// with first when has is set (the slot it was started for), until the
// dispatcher closes slots.
func (w *worker) openLoop(first slot, has bool, slots <-chan slot) {
	w.rec.OpenLoop()
	sl := first
	for {
		if !has {
			var ok bool
			if sl, ok = <-slots; !ok {
				return
			}
		}
		has = false
		w.slot = &sl
		if !w.do(sl.due) {
			return
		}
	}
}

// do issues the stream's next op and records it; intended is when the
// schedule wanted it to start (zero: closed loop, now). ok=false: the
// stream has no more work.
func (w *worker) do(intended time.Time) bool {
	s := w.s
	if s.bytesReached() {
		return false
	}
	t, ok := w.next()
	if !ok {
		return false
	}
	claim, ok := w.claimBytes(t)
	if !ok {
		t.turn.leave()
		return false
	}
	if w.getsApart(&t) {
		w.cur = t
		w.getApart() // waiting here, at the top of the worker's stack (splitget.go)
	} else {
		w.run(t)
	}
	t.turn.leave()
	if !intended.IsZero() {
		w.res.Intended = intended
	} else if !t.due.IsZero() {
		w.res.Intended = t.due
	}
	if t.pool != nil {
		releaseLeases(t)
	}
	if s.countsOp(&w.res) { // COSBench's ramps: what is left out is not recorded
		w.rec.Record(&w.res)
		w.span.note(&w.res)
		if s.own.set() {
			w.countOwn()
		}
	}
	if s.run.cfg.OpLog != nil {
		w.logOp(&t, w.rangedOp(&t))
	}
	answered := w.outcome(t)
	s.count(w.res.Err != nil && !answered)
	if w.res.Err == nil && (creates(t.op) || t.op == metrics.OpCAS) {
		s.run.ledger.stored()
	}
	w.settleBytes(claim)
	w.afterOp(s.stopCtx)
	return true
}

// next chooses the next task; ok=false means the stream has no more work.
func (w *worker) next() (task, bool) {
	s := w.s
	if s.replay != nil {
		return w.replayTask()
	}
	if f := s.work.fixed; f.at != nil || f.pull != nil {
		i := s.cursor.Add(1) - 1
		if i >= f.n {
			s.end.finish("done")
			return task{}, false
		}
		if f.pull != nil {
			t, ok, cause := f.pull()
			if !ok {
				s.end.finish(cause)
			}
			return t, ok
		}
		return f.at(w, i), true
	}
	for range maxPicks {
		i := s.work.mix.pick(w.rng)
		d, smp := s.work.ops[i], &w.samplers[i]
		if d.off.Load() {
			if s.work.allOff() {
				s.end.finish(stopNotImplemented)
				return task{}, false
			}
			continue
		}
		b := int(smp.bucket())
		t := task{op: d.op, store: d.sp.stores[b], check: w.checks[i], def: d, own: d.sp.ownAt(b)}
		if d.sp.pool == nil && t.op != metrics.OpList && t.op != metrics.OpListVersions {
			return w.numbered(t, d, smp), true
		}
		if t, ok := w.nextInPool(t, d, smp); ok {
			return t, true
		}
		if !d.refills {
			break
		}
		// The pool is empty for now, but this stream's writes refill it:
		// pick again rather than end the stream.
	}
	s.end.finish("no objects left")
	return task{}, false
}

// maxPicks bounds how often a worker re-picks an op whose pool is empty
// for now (its stream writes into it) before it gives up.
const maxPicks = 64

// numbered makes the task of an op on numbered objects: writes and deletes
// hit the number drawn, as in COSBench.
func (w *worker) numbered(t task, d *opDef, smp *opSampler) task {
	t.num = smp.index()
	t.key = d.sp.key(t.num)
	t.seed = keySeed(t.key)
	switch t.op {
	case metrics.OpPut, metrics.OpMultipart:
		t.size = smp.size()
	case metrics.OpGet, metrics.OpRangeGet:
		t.size = d.sizes.Min // at least the size: ranges stay inside
		t.exact = d.exact
	default:
		w.numberedS3(&t, d, smp)
	}
	return t
}

// nextInPool picks from a pool: PUTs add new keys, DELETEs take live ones,
// reads lease live ones; LIST lists the space's prefix. ok=false: the pool
// is empty.
func (w *worker) nextInPool(t task, d *opDef, smp *opSampler) (task, bool) {
	p, ok := d.sp.pool, true
	t.pool = p
	switch t.op {
	case metrics.OpList, metrics.OpListVersions:
		t.key = d.sp.prefix
		return t, true
	case metrics.OpPut, metrics.OpMultipart:
		t.key = p.newKey()
		t.size = smp.size()
	case metrics.OpDelete:
		t.key, ok = p.take(w.rng)
	case metrics.OpCopy, metrics.OpPartCopy, metrics.OpDeleteBatch:
		return w.pooledS3(t, p)
	default:
		t.key, t.size, ok = p.pick(w.rng)
		t.exact = true
	}
	t.seed = keySeed(t.key)
	return t, ok
}

// run performs t and fills w.res with its timing and outcome.
func (w *worker) run(t task) {
	s, ctx := w.s, w.s.opCtx
	w.trace, w.traced = storage.Trace{}, false // an op failing before it sends leaves the trace as it was
	w.presignURL(ctx, t)
	if held, ok := w.holdOwn(ctx, t); !ok {
		return
	} else if held {
		defer t.own.release(t.num)
	}
	start := time.Now()
	var err error
	var n int64
	switch t.op {
	case metrics.OpPut:
		var body io.Reader = w.body
		if t.src != nil {
			rc, oerr := t.src.Open()
			if oerr != nil {
				err = oerr
				break
			}
			defer rc.Close()
			body = rc
		} else if w.hashes(t) {
			if body, err = w.hashedBody(t); err != nil {
				break
			}
		} else {
			w.body.Reset(t.seed, t.size)
		}
		var info storage.ObjectInfo
		if t.own != nil {
			info, err = w.putOwn(ctx, t, body)
		} else {
			info, err = t.store.Put(ctx, t.key, body, t.size, w.putOptions())
		}
		if err == nil {
			n = t.size
			w.wrote(t.key, info)
		}
	case metrics.OpMultipart:
		n, err = w.multipart(ctx, t)
	case metrics.OpGet:
		n, err = w.get(ctx, t, s.work.getRange)
	case metrics.OpRangeGet:
		n, err = w.get(ctx, t, s.work.rangeSize)
	case metrics.OpStat:
		err = w.stat(ctx, t)
	case metrics.OpDelete:
		if t.own != nil {
			err = w.deleteOwn(ctx, t)
		} else {
			err = w.del(ctx, t)
		}
	case metrics.OpList:
		err = t.store.List(ctx, t.key, func(storage.ObjectInfo) error { return nil })
	default:
		n, err = w.runS3(ctx, t)
	}
	if err == nil && t.pool != nil && creates(t.op) {
		t.pool.add(t.key, t.size)
	}
	w.res = metrics.Result{Op: t.op, Intended: start, Start: start, FirstByte: w.trace.FirstByte,
		End: time.Now(), Bytes: n, Err: err, Phases: w.phases(t.store)}
}

// get reads the object, or a random range of rangeLen bytes of it, and
// with verification on compares every byte with what was written.
func (w *worker) get(ctx context.Context, t task, rangeLen int64) (int64, error) {
	o := w.getOptions(t)
	var off int64
	switch {
	case t.rg != nil:
		w.rg, off, rangeLen = *t.rg, t.rg.Offset, t.rg.Length
		o.Range = &w.rg
	case rangeLen > 0:
		if t.size > rangeLen {
			off = w.rng.Int64N(t.size - rangeLen + 1)
		}
		w.rg = storage.Range{Offset: off, Length: rangeLen}
		o.Range = &w.rg
	}
	verify, trailer := w.s.work.verify, false
	if d := t.def; d != nil {
		verify, trailer = d.verify, d.trailer
	}
	if !verify || t.check == nil || (trailer && o.Range != nil) {
		return w.read(ctx, t, o, io.Discard)
	}
	if trailer {
		return w.readTrailer(ctx, t, o)
	}
	t.check.Reset(t.seed, off)
	n, err := w.read(ctx, t, o, t.check)
	want := t.size - off // the whole rest of the object, or the range within it
	if rangeLen > 0 {
		want = min(rangeLen, want)
	}
	if err == nil && (t.check.Mismatch() >= 0 || t.exact && n != want) {
		// Bytes that differ, or an object shorter or longer than written
		// (a consistent Content-Length would not reveal truncation).
		err = &storage.OpError{Op: "get", Key: t.key, Err: storage.ErrChecksum}
	}
	return n, err
}

// sleep waits d or until ctx ends; it reports whether the full wait passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
