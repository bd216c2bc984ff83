package loadgen

import (
	"strconv"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/oplog"
	"github.com/objbench/objbench/workload"
)

// OpLogger receives every op a run issues, as the op log keeps it
// (*oplog.Writer is one). Record is called from the workers, concurrently,
// and must keep nothing of rec.
type OpLogger interface {
	Record(worker int, rec *oplog.Record)
}

// stepLabel names a step in the op log as the tables do: the stage, the
// sweep's label in brackets, the repetition after '#'.
func stepLabel(st workload.Stage, i, rep, reps int) string {
	n := st.Name
	if l := st.StepLabel(i); l != "" {
		n += " [" + l + "]"
	}
	if reps > 1 {
		n += " #" + strconv.Itoa(rep+1)
	}
	return n
}

// logOp hands the op just recorded to the run's op log. Sizes are the
// bytes a write wrote (or meant to), the bytes a read moved, else the
// object's size when known (STAT, DELETE, a failed read), so a log can be
// replayed and rebuilds the byte rates.
func (w *worker) logOp(t *task, ranged bool) {
	s, res := w.s, &w.res
	if w.logRec == nil {
		w.logRec = new(oplog.Record)
	}
	r := w.logRec
	*r = oplog.Record{Start: res.Start, Op: res.Op, Bucket: s.run.stores.name(t.store), Key: t.key,
		Latency: res.End.Sub(res.Start), Stream: s.name, Step: s.run.logStep}
	switch {
	case res.Op == metrics.OpPut || res.Op == metrics.OpMultipart:
		r.Size = t.size
	case res.Bytes > 0:
		r.Size = res.Bytes // what the read moved
	default:
		r.Size = t.size // a STAT's or DELETE's object, a failed read's: its size when known
	}
	if !res.FirstByte.IsZero() {
		r.TTFB = res.FirstByte.Sub(res.Start)
	}
	if s.sched != nil || !t.due.IsZero() {
		r.Intended = res.Intended
	}
	if ranged {
		r.Range = w.rg
	}
	r.SetError(res.Err)
	s.run.cfg.OpLog.Record(w.id, r)
}

// rangedOp reports whether t read a range (w.rg holds it).
func (w *worker) rangedOp(t *task) bool {
	switch t.op {
	case metrics.OpRangeGet:
		return w.s.work.rangeSize > 0 || t.rg != nil
	case metrics.OpGet:
		return w.s.work.getRange > 0
	}
	return false
}

var _ OpLogger = (*oplog.Writer)(nil)
