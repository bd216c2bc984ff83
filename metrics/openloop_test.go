package metrics_test

import (
	"testing"
	"time"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/result"
)

// An open-loop recorder keeps response time (from the intended start) beside
// service time, and counts dropped slots apart from issued ops.
func TestOpenLoopResponseAndDropped(t *testing.T) {
	s := metrics.NewSeries(t0)
	r := s.NewRecorder()
	r.OpenLoop()
	closed := s.NewRecorder()
	for i := range 100 {
		intended := at(time.Duration(i) * 10 * time.Millisecond)
		start := intended.Add(5 * time.Millisecond) // queued 5 ms
		r.Record(&metrics.Result{Op: metrics.OpGet, Intended: intended, Start: start, End: start.Add(2 * time.Millisecond)})
		if i%4 == 0 {
			r.Dropped(metrics.OpGet, start)
		}
		closed.Record(&metrics.Result{Op: metrics.OpPut, Intended: start, Start: start, End: start.Add(time.Millisecond)})
	}
	secs, w := s.Finish()
	totals, err := result.Summarize(secs, w)
	if err != nil {
		t.Fatal(err)
	}
	get := find(t, totals, "GET")
	if get.Ops != 100 || get.OK != 100 || get.Dropped != 25 {
		t.Errorf("ops %d ok %d dropped %d, want 100 100 25", get.Ops, get.OK, get.Dropped)
	}
	if get.Response == nil || get.Response.Count != 100 || get.Response.P50 < 6990 || get.Response.P50 > 7010 {
		t.Errorf("response %+v, want 100 values near 7 ms", get.Response)
	}
	if get.Latency.P50 < 1990 || get.Latency.P50 > 2010 {
		t.Errorf("service p50 %d µs, want 2 ms", get.Latency.P50)
	}
	if put := find(t, totals, "PUT"); put.Response != nil || put.Dropped != 0 {
		t.Errorf("closed loop has response %+v, dropped %d", put.Response, put.Dropped)
	}
}
