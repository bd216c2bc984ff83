package faultserver_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/faultserver"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/workload"
)

// Closed loop against a known delay distribution: every reported
// percentile of GET latency lies within 2% or 0.5 ms of the server's own
// record of each request's time.
//
// The client's overhead (loopback, signing, goroutine wake-ups) is ~0.25
// ms here on an idle machine and grows with CPU contention from other
// processes, so the bound must hold in one of three runs; each run's
// errors are logged.
func TestClosedLoopDelayDistribution(t *testing.T) {
	for attempt := 1; ; attempt++ {
		if delayRunWithinBounds(t, attempt) {
			return
		}
		if attempt == 3 || raceEnabled { // under -race the bound is only logged: one run is enough
			timingCheck(t)("no run of three met the bound of 2%% or 0.5 ms at every percentile (errors logged above)")
			return
		}
	}
}

func delayRunWithinBounds(t *testing.T, attempt int) bool {
	srv, st := startServer(t, faultserver.Config{Seed: 1, Delay: faultserver.Delay{
		Base: 2 * time.Millisecond, Jitter: 8 * time.Millisecond,
		Tail: []faultserver.Tail{{Fraction: 0.02, At: 50 * time.Millisecond}, {Fraction: 0.005, At: 100 * time.Millisecond}},
	}})
	step := runMain(t, srv, st, faultserver.Spec(getStream(2, workload.Bounds{Ops: 1200, Duration: 10 * time.Second}, 1024)), 5*time.Second)
	get := opTotal(t, step, "GET")
	events := srv.Events()
	// The truth is the server's own time per request: the delay as its
	// timers realized it (they overshoot the planned one by up to ~1 ms)
	// plus S3 processing. The planned delays are logged beside it.
	truth := servedHistogram(events, http.MethodGet)
	if get.Ops != 1200 || get.OK != 1200 || truth.TotalCount() != 1200 {
		t.Fatalf("client: %d ops, %d ok; server saw %d GETs: want 1200 each", get.Ops, get.OK, truth.TotalCount())
	}
	planned := heldHistogram(events, http.MethodGet)
	t.Logf("run %d: planned delays p50 %d p90 %d p99 %d p99.9 %d µs", attempt, planned.ValueAtQuantile(50), planned.ValueAtQuantile(90),
		planned.ValueAtQuantile(99), planned.ValueAtQuantile(99.9))
	rel, abs := tolerance()
	return comparePercentiles(t, "closed loop GET", get.Latency, truth, rel, abs)
}

// tolerance bounds a percentile's error: 2% or 0.5 ms, whichever is
// larger (asserted without the race detector, see timingCheck).
func tolerance() (rel float64, abs time.Duration) {
	return 0.02, 500 * time.Microsecond
}

// Under each fault alone and all at once, every op is accounted (issued =
// ok + errors by class), each class matches what the server did,
// corrupted bytes are caught by verification (and pass unseen without
// it), and the client's op count is the server's request count.
func TestEveryOpAccountedUnderFaults(t *testing.T) {
	for _, c := range []struct {
		name   string
		op     string
		cfg    faultserver.Config
		verify bool
	}{
		{"all GET faults", "get", faultserver.Config{SlowDown: 0.05, Reset: 0.04, Truncate: 0.04, Corrupt: 0.04}, true},
		{"slowdown", "get", faultserver.Config{SlowDown: 0.2}, true},
		{"reset", "get", faultserver.Config{Reset: 0.2}, true},
		{"truncate", "get", faultserver.Config{Truncate: 0.2}, true},
		{"corrupt", "get", faultserver.Config{Corrupt: 0.2}, true},
		{"corrupt unverified", "get", faultserver.Config{Corrupt: 0.2}, false},
		{"put slowdown", "put", faultserver.Config{SlowDown: 0.2}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.cfg.Seed, c.cfg.Delay = 2, faultserver.Delay{Base: 200 * time.Microsecond}
			srv, st := startServer(t, c.cfg)
			s := getStream(4, workload.Bounds{Ops: 400, Duration: 20 * time.Second}, 16<<10)
			s.Mix[0].Op = c.op
			if c.op == "put" {
				s.Objects.Count = 0
			}
			s.Data.Verify = c.verify
			sp := faultserver.Spec(s)
			if len(sp.Stages) > 1 {
				sp.Stages[0].Streams[0].Data.Verify = false
			}
			step := runMain(t, srv, st, sp, 5*time.Second)
			method := map[string]string{"get": http.MethodGet, "put": http.MethodPut}[c.op]
			tot := opTotal(t, step, strings.ToUpper(c.op))
			checkAccounting(t, tot, srv.Events(), method, c.verify)
		})
	}
}

func checkAccounting(t *testing.T, tot result.OpTotal, events []faultserver.Event, method string, verify bool) {
	t.Helper()
	var errs int64
	for _, n := range tot.Errors {
		errs += n
	}
	byFault, ok := countEvents(events, method)
	var served int64
	for _, n := range byFault {
		served += n
	}
	t.Logf("client: ops %d ok %d errors %v; server: %d requests, faults %v", tot.Ops, tot.OK, tot.Errors, served, byFault)
	if tot.Ops != 400 || tot.Ops != tot.OK+errs || served != tot.Ops {
		t.Errorf("issued %d = ok %d + errors %d? server served %d; want 400 of each", tot.Ops, tot.OK, errs, served)
	}
	corrupt := byFault[faultserver.Corrupt]
	wantOK := ok
	if !verify {
		wantOK += corrupt // a corrupted body is a success to a client that does not look
		corrupt = 0
	}
	if tot.OK != wantOK {
		t.Errorf("client ok %d, server whole %d (corrupted %d, verify %v)", tot.OK, ok, byFault[faultserver.Corrupt], verify)
	}
	if got, want := tot.Errors["http_503"], byFault[faultserver.SlowDown]; got != want {
		t.Errorf("http_503: %d, server answered %d SlowDowns", got, want)
	}
	if got := tot.Errors[storage.ClassChecksum]; got != corrupt {
		t.Errorf("checksum errors: %d, want %d (server corrupted %d, verify %v)", got, corrupt, byFault[faultserver.Corrupt], verify)
	}
	cut := byFault[faultserver.Reset] + byFault[faultserver.Truncate]
	if got := errs - tot.Errors["http_503"] - tot.Errors[storage.ClassChecksum]; got != cut {
		t.Errorf("connection errors %d (%v), server cut %d bodies", got, tot.Errors, cut)
	}
}

// Throughput: the bytes the server received whole inside the client's
// common window, divided by the window, equal the reported PUT rate
// within 1%. Ops straddling the window's edges count pro rata on both
// sides (the client spreads bytes over the seconds an op covers).
func TestThroughputMatchesServerBytes(t *testing.T) {
	srv, st := startServer(t, faultserver.Config{Seed: 4, Delay: faultserver.Delay{Base: time.Millisecond, Jitter: time.Millisecond}})
	s := workload.Stream{Name: "p", Mix: []workload.OpWeight{{Op: "put", Weight: 1}}, Concurrency: []int{4},
		Bounds: workload.Bounds{Duration: 3 * time.Second}, Size: 64 << 10}
	step := runMain(t, srv, st, faultserver.Spec(s), 5*time.Second)
	put := opTotal(t, step, "PUT")
	win := step.Streams[0].Window
	from := step.Start.Add(time.Duration(win.Start * float64(time.Second)))
	to := step.Start.Add(time.Duration(win.End * float64(time.Second)))
	var inside float64
	var whole int64
	for _, e := range srv.Events() {
		if e.Method != http.MethodPut || e.Bytes == 0 {
			continue
		}
		whole += e.Bytes
		lo, hi := maxTime(e.Start, from), minTime(e.End, to)
		if hi.After(lo) {
			inside += float64(e.Bytes) * float64(hi.Sub(lo)) / float64(e.End.Sub(e.Start))
		}
	}
	server := inside / win.Duration()
	t.Logf("client %.1f MiB/s over %.2f s, server %.1f MiB/s (error %+.3f%%); bytes client %d, server %d",
		put.BytesPerSec/(1<<20), win.Duration(), server/(1<<20), 100*(put.BytesPerSec/server-1), put.Bytes, whole)
	if put.Bytes != whole || put.OK != put.Ops {
		t.Errorf("client wrote %d bytes in %d/%d ok ops, server received %d", put.Bytes, put.OK, put.Ops, whole)
	}
	if r := put.BytesPerSec / server; r < 0.99 || r > 1.01 {
		timingCheck(t)("client %.0f B/s, server %.0f B/s: more than 1%% apart", put.BytesPerSec, server)
	}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// Nothing hangs past the grace period: requests held in a stall far
// longer than the run are cancelled when grace ends, and accounted.
func TestNothingHangsPastGrace(t *testing.T) {
	// Only GETs stall: on a loaded machine the prepare stage's PUTs may
	// still run at 200 ms, and prepare has no grace (no bound to stop it).
	srv, st := startServer(t, faultserver.Config{Seed: 5, Stall: faultserver.Stall{Every: time.Hour, For: 30 * time.Minute,
		Offset: 200 * time.Millisecond, Method: http.MethodGet}, SlowBody: 1 << 20})
	const grace = 300 * time.Millisecond
	begin := time.Now()
	step := runMain(t, srv, st, faultserver.Spec(getStream(4, workload.Bounds{Duration: 500 * time.Millisecond}, 16<<10)), grace)
	took := time.Since(begin)
	get := opTotal(t, step, "GET")
	var errs int64
	for _, n := range get.Errors {
		errs += n
	}
	t.Logf("run took %v; GET ops %d ok %d errors %v", took, get.Ops, get.OK, get.Errors)
	if took > 5*time.Second {
		t.Errorf("run took %v: held requests outlived the %v grace", took, grace)
	}
	if get.Ops != get.OK+errs || get.Errors["canceled"] != 4 {
		t.Errorf("ops %d ok %d errors %v: want the 4 held GETs cancelled and counted", get.Ops, get.OK, get.Errors)
	}
}

// Slow bodies: GETs of 64 KiB sent at 1 MiB/s take the server ~62.5 ms
// to send; the client's latency matches the server's record.
func TestSlowBodyLatency(t *testing.T) {
	srv, st := startServer(t, faultserver.Config{Seed: 6, SlowBody: 1 << 20})
	step := runMain(t, srv, st, faultserver.Spec(getStream(2, workload.Bounds{Ops: 40, Duration: 20 * time.Second}, 64<<10)), 5*time.Second)
	get := opTotal(t, step, "GET")
	truth := servedHistogram(srv.Events(), http.MethodGet)
	if get.OK != 40 || truth.TotalCount() != 40 {
		t.Fatalf("client %d ok, server %d whole GETs: want 40", get.OK, truth.TotalCount())
	}
	if p50 := time.Duration(truth.ValueAtQuantile(50)) * time.Microsecond; p50 < 60*time.Millisecond {
		t.Errorf("server p50 %v: 64 KiB at 1 MiB/s takes 62.5 ms", p50)
	}
	d := get.Latency.P50 - truth.ValueAtQuantile(50)
	if d < -2000 || d > 2000 {
		timingCheck(t)("client p50 %d µs, server %d µs", get.Latency.P50, truth.ValueAtQuantile(50))
	}
	t.Logf("slow body: client p50 %d µs, server %d µs", get.Latency.P50, truth.ValueAtQuantile(50))
}
