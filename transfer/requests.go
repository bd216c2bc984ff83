package transfer

import (
	"sync"
	"time"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/retry"
)

// requests files every data request of a Run (a small object's PUT or
// GET, one part, one ranged GET) into per-second records, the form every
// objbench result has: op PUT for uploads, GET for downloads, with the
// bytes it moved, its latency (first attempt to success, retries
// included), its time to first byte and its phases. A failed attempt
// counts as an error of its class, so requests issued = ok + errors.
// Requests end at most a few hundred times a second: one lock will do.
type requests struct {
	mu     sync.Mutex
	series *metrics.Series
	rec    *metrics.Recorder
	op     metrics.Op
	traced bool // the store fills phases (a network store)
}

func newRequests(start time.Time, download bool, st storage.Store) *requests {
	q := &requests{series: metrics.NewSeries(start), op: metrics.OpPut}
	if download {
		q.op = metrics.OpGet
	}
	q.rec = q.series.NewRecorder()
	_, q.traced = st.(storage.ConnCounter)
	return q
}

// done records one request that started at start and moved n bytes.
func (q *requests) done(start, end time.Time, tr *storage.Trace, n int64, err error) {
	res := metrics.Result{Op: q.op, Intended: start, Start: start, FirstByte: tr.FirstByte, End: end, Bytes: n, Err: err}
	if q.traced {
		res.Phases = &tr.Phases
	}
	q.mu.Lock()
	q.rec.Record(&res)
	q.mu.Unlock()
}

// failedAttempt counts an attempt of a data request that will be tried
// again.
func (q *requests) failedAttempt(r retry.Retry) {
	switch r.Op {
	case retry.OpPut, retry.OpUploadPart, retry.OpGet:
	default:
		return
	}
	now := time.Now()
	q.mu.Lock()
	q.rec.Record(&metrics.Result{Op: q.op, Intended: now, Start: now, End: now, Err: r.Err})
	q.mu.Unlock()
}

// sweep finalizes the seconds that can no longer change, once a second
// until stop closes, so a long transfer holds encoded seconds, not open
// histograms.
func (q *requests) sweep(stop <-chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			q.series.Sweep(now)
		}
	}
}
