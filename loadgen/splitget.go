package loadgen

import (
	"io"
	"time"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/storage"
)

// A plain GET against a store that sends it apart from reading its
// answer (storage.GetStarter: the S3 store for thousands of workers)
// waits at the top of the worker's stack, in do, instead of deep in the
// store's request path; the deep parts, sending and reading, run on the
// stream's runners (runners.go). With thousands of workers nearly all
// waiting, a waiting worker then holds a 4 KiB stack, not 8, of which the
// GC scans (and counts into its goal) about 1 KB, not the ~3.6 KB of the
// request path's frames. What is started here is run as run would run it.

// getsApart reports whether t is a plain GET (whole object, not verified,
// not presigned) of a small object whose store sends GETs apart. A large
// body's reading would hold a runner as long as it lasts.
func (w *worker) getsApart(t *task) bool {
	if t.op != metrics.OpGet || t.rg != nil || t.size > maxApartSize {
		return false
	}
	gs, ok := t.store.(storage.GetStarter)
	work := w.s.work
	return ok && work.getRange == 0 && !work.s3.presign && !(work.verify && t.check != nil) && gs.GetsApart()
}

// maxApartSize is the largest object whose GET is sent apart: its answer
// comes in one or two reads.
const maxApartSize = 64 << 10

// getApart runs w.cur, a GET getsApart accepted: started on a runner,
// awaited here, finished on a runner.
func (w *worker) getApart() {
	r := w.s.runners
	r.call(w, (*worker).startGet)
	if w.pend != nil {
		w.pend.Await()
		r.call(w, (*worker).finishGet)
	}
}

// startGet sends w.cur's GET; w.pend is nil if the store ran it whole
// instead (then w.res is filled).
func (w *worker) startGet() {
	t := &w.cur
	w.trace, w.traced = storage.Trace{}, false
	w.url, w.urlErr = "", nil
	o := w.getOptions(*t)
	w.started = time.Now()
	if p, ok := t.store.(storage.GetStarter).StartGet(w.s.opCtx, t.key, o); ok {
		w.pend = p
		return
	}
	w.run(*t)
}

// finishGet reads the answer of the GET startGet sent and fills w.res
// with its timing and outcome, as run does.
func (w *worker) finishGet() {
	t := &w.cur
	n, err := w.pend.Finish(io.Discard)
	w.pend = nil
	w.res = metrics.Result{Op: t.op, Intended: w.started, Start: w.started, FirstByte: w.trace.FirstByte,
		End: time.Now(), Bytes: n, Err: err, Phases: w.phases(t.store)}
}
