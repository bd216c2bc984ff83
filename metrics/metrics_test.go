package metrics_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

func find(t *testing.T, totals []result.OpTotal, op string) result.OpTotal {
	t.Helper()
	for _, o := range totals {
		if o.Op == op {
			return o
		}
	}
	t.Fatalf("no totals for %s in %+v", op, totals)
	return result.OpTotal{}
}

// Per-worker, per-second histograms merged through encoded records must give
// exactly the percentiles of one histogram fed every value.
func TestMergedWorkersEqualOneHistogram(t *testing.T) {
	s := metrics.NewSeries(t0)
	workers := []*metrics.Recorder{s.NewRecorder(), s.NewRecorder(), s.NewRecorder()}
	truth := hdr.New(1, int64(time.Hour/time.Microsecond), 3)
	rng := rand.New(rand.NewPCG(1, 2))
	clock := make([]time.Duration, len(workers))
	for i := 0; i < 30000; i++ {
		w := i % len(workers)
		lat := time.Duration(rng.ExpFloat64()*2000+50) * time.Microsecond
		start := clock[w]
		clock[w] += lat
		workers[w].Record(&metrics.Result{Op: metrics.OpGet, Start: at(start), End: at(clock[w]), Bytes: 4096})
		_ = truth.RecordValue(int64(lat / time.Microsecond))
		if i%5000 == 0 {
			s.Sweep(at(clock[w])) // a concurrent collector sweeping mid-run must not change totals
		}
	}
	secs, w := s.Finish()
	totals, err := result.Summarize(secs, w)
	if err != nil {
		t.Fatal(err)
	}
	got := find(t, totals, "GET").Latency
	for _, c := range []struct {
		name      string
		got, want int64
	}{
		{"p50", got.P50, truth.ValueAtQuantile(50)}, {"p99", got.P99, truth.ValueAtQuantile(99)},
		{"p99.9", got.P999, truth.ValueAtQuantile(99.9)}, {"max", got.Max, truth.Max()},
		{"count", got.Count, truth.TotalCount()},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	if find(t, totals, "GET").Bytes != 30000*4096 {
		t.Errorf("bytes = %d, want %d", find(t, totals, "GET").Bytes, 30000*4096)
	}
}

// An op and its bytes count together, in the second in which the op ended:
// a 2 s PUT from 0.5 s to 2.5 s is one op of 2000 bytes in second 2. A
// failed op moves no bytes.
func TestOpAndBytesCountWhereTheOpEnded(t *testing.T) {
	s := metrics.NewSeries(t0)
	r := s.NewRecorder()
	r.Record(&metrics.Result{Op: metrics.OpPut, Start: at(500 * time.Millisecond), End: at(2500 * time.Millisecond), Bytes: 2000})
	r.Record(&metrics.Result{Op: metrics.OpPut, Start: at(2600 * time.Millisecond), End: at(2700 * time.Millisecond), Bytes: 50, Err: storage.ErrNotFound})
	secs, _ := s.Finish()
	want := []struct{ ops, bytes int64 }{{0, 0}, {0, 0}, {2, 2000}}
	if len(secs) != 3 {
		t.Fatalf("got %d seconds, want 3: %+v", len(secs), secs)
	}
	for i, sec := range secs {
		var ops, b int64
		for _, o := range sec.Ops {
			ops, b = ops+o.Ops, b+o.Bytes
		}
		if ops != want[i].ops || b != want[i].bytes {
			t.Errorf("second %d has %d ops and %d bytes, want %d and %d", i, ops, b, want[i].ops, want[i].bytes)
		}
	}
}

func TestEveryOpAccounted(t *testing.T) {
	s := metrics.NewSeries(t0)
	r := s.NewRecorder()
	errs := []error{nil, nil, &storage.StatusError{StatusCode: 503}, storage.ErrNotFound, errors.New("boom"), nil}
	for i, e := range errs {
		r.Record(&metrics.Result{Op: metrics.OpStat, Start: at(time.Duration(i) * time.Second), End: at(time.Duration(i)*time.Second + time.Millisecond), Err: e})
	}
	secs, w := s.Finish()
	totals, err := result.Summarize(secs, w)
	if err != nil {
		t.Fatal(err)
	}
	st := find(t, totals, "STAT")
	var nerr int64
	for _, n := range st.Errors {
		nerr += n
	}
	if st.Ops != 6 || st.OK != 3 || nerr != 3 || st.Ops != st.OK+nerr {
		t.Errorf("ops=%d ok=%d errors=%v", st.Ops, st.OK, st.Errors)
	}
	for _, class := range []string{"http_503", "not_found", "other"} {
		if st.Errors[class] != 1 {
			t.Errorf("errors[%s] = %d, want 1 (all: %v)", class, st.Errors[class], st.Errors)
		}
	}
	if st.Latency.Count != 3 {
		t.Errorf("latency histogram has %d values, want the 3 successes", st.Latency.Count)
	}
}

// The window opens when the slowest worker finishes its first op and closes
// when the first worker stops; rates count only what lies inside it.
func TestWindowExcludesRamp(t *testing.T) {
	s := metrics.NewSeries(t0)
	a, b := s.NewRecorder(), s.NewRecorder()
	for i := 0; i < 10; i++ { // a: one 1 KiB op per second from 0 to 10 s
		a.Record(&metrics.Result{Op: metrics.OpGet, Start: at(time.Duration(i) * time.Second), End: at(time.Duration(i+1) * time.Second), Bytes: 1000})
	}
	for i := 2; i < 8; i++ { // b: starts late (2 s), stops early (8 s)
		b.Record(&metrics.Result{Op: metrics.OpGet, Start: at(time.Duration(i) * time.Second), End: at(time.Duration(i+1) * time.Second), Bytes: 1000})
	}
	secs, w := s.Finish()
	if w.Start != 3 || w.End != 8 {
		t.Fatalf("window = %+v, want 3s..8s", w)
	}
	totals, _ := result.Summarize(secs, w)
	g := find(t, totals, "GET")
	// In [3 s, 8 s): a's ops ending at 3..7 s and b's ending at 3..7 s;
	// those ending at 8 s lie on the window's end, outside it.
	if g.WindowOps != 10 || math.Abs(g.BytesPerSec-2000) > 1e-6 || g.Ops != 16 {
		t.Errorf("%v ops in the window, %v bytes/s (want 10 and 2000: two workers at 1000 B/s), ops = %d (want 16)", g.WindowOps, g.BytesPerSec, g.Ops)
	}
}
