package plan_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/replay/plan"
)

// writeLog writes op-log lines: each "offsetMs OP key size [error]".
func writeLog(t *testing.T, lines ...string) string {
	t.Helper()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var b strings.Builder
	for _, l := range lines {
		var ms int
		var op, key string
		var size int64
		f := strings.Fields(l)
		fmt.Sscan(f[0], &ms)
		op, key = f[1], f[2]
		fmt.Sscan(f[3], &size)
		fmt.Fprintf(&b, `{"time":%q,"op":%q,"key":%q,"size":%d,"latency_us":%d`, t0.Add(time.Duration(ms)*time.Millisecond).Format(time.RFC3339Nano), op, key, size, 1000+ms)
		if len(f) > 4 {
			fmt.Fprintf(&b, `,"error":%q,"status":404`, f[4])
		}
		b.WriteString(`,"worker":0}` + "\n")
	}
	p := filepath.Join(t.TempDir(), "log.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func drain(t *testing.T, p *plan.Plan) []loadgen.ReplayOp {
	t.Helper()
	src, err := p.Source()
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var out []loadgen.ReplayOp
	for {
		op, ok := src.Next()
		if !ok {
			break
		}
		out = append(out, op)
	}
	if err := src.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Reads of keys the log never wrote are prepared once, with the largest
// size the log gives; a read the source saw fail (404) is not, so the
// replay fails it too; writes come first for their keys.
func TestPrepareOnlyWhatIsReadFirst(t *testing.T) {
	path := writeLog(t,
		"0 GET a 100", "10 GET a 100", "20 PUT b 50", "30 GET b 50", "40 STAT c 70", "50 GET gone 0 NoSuchKey", "60 DELETE d 0", "70 LIST a/ 0")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	p, err := plan.New(plan.Options{Paths: []string{path}, Speed: 1, Namespace: "objbench/run/", DefaultSize: 4096})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	// The list lives in a file already unlinked: a replay killed midway
	// leaves nothing behind.
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("%d files in TMPDIR while the plan is open (%s): a killed replay would leave them", len(left), left[0].Name())
	}
	want := map[string]int64{"objbench/run/replay/a": 100, "objbench/run/replay/c": 70, "objbench/run/replay/d": 4096}
	if got := prepared(t, p); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("prepared %v, want %v", got, want)
	}
	ops := drain(t, p)
	if len(ops) != 8 || p.Issued() != 8 {
		t.Fatalf("%d ops streamed, %d counted; want 8", len(ops), p.Issued())
	}
	if l := ops[7]; l.Op != metrics.OpList || l.Key != "objbench/run/replay/a/" {
		t.Errorf("the LIST of a/ became %v %q, want a prefix that covers objbench/run/replay/a/...", l.Op, l.Key)
	}
	if ops[3].At != 30*time.Millisecond {
		t.Errorf("op 3 due at %v, want 30ms", ops[3].At)
	}
	info := p.Info([]string{path})
	for _, s := range info.Source {
		if s.Op == "GET" && (s.Ops != 4 || s.Latency.Count != 4) {
			t.Errorf("source GETs: %+v; want 4 with 4 latencies", s)
		}
	}
}

// --window and --ops take a slice, its offsets counted from its own first
// op and divided by the speed.
func TestWindowOpsAndSpeed(t *testing.T) {
	var lines []string
	for i := range 100 {
		lines = append(lines, fmt.Sprintf("%d PUT k%d 10", i*100, i))
	}
	path := writeLog(t, lines...)
	p, err := plan.New(plan.Options{Paths: []string{path}, Speed: 2, From: 2 * time.Second, To: 5 * time.Second, Namespace: "objbench/run/"})
	if err != nil {
		t.Fatal(err)
	}
	ops := drain(t, p)
	if len(ops) != 30 || ops[0].Key != "objbench/run/replay/k20" || ops[29].Key != "objbench/run/replay/k49" {
		t.Fatalf("window 2s..5s gave %d ops (%v .. %v), want k20..k49", len(ops), ops[0].Key, ops[len(ops)-1].Key)
	}
	if ops[0].At != 0 || ops[10].At != 500*time.Millisecond {
		t.Errorf("offsets %v, %v at speed 2: want 0 and 500ms", ops[0].At, ops[10].At)
	}
	p, err = plan.New(plan.Options{Paths: []string{path}, Speed: 1, Ops: 7, Namespace: "objbench/run/"})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(drain(t, p)); n != 7 || p.Issued() != 7 {
		t.Errorf("--ops 7 streamed %d, counted %d", n, p.Issued())
	}
}

// Ops the logs cannot say enough about to replay are counted by reason;
// a log with nothing to replay is an error that says why.
func TestUnreplayableOpsAreCounted(t *testing.T) {
	path := writeLog(t, "0 COPY a 10", "10 COPY b 10")
	_, err := plan.New(plan.Options{Paths: []string{path}, Speed: 1, Namespace: "objbench/run/"})
	if err == nil || !strings.Contains(err.Error(), "2 op not replayed: COPY") {
		t.Errorf("a log of copies: %v", err)
	}
}

// An op log's own setup and cleanup steps are left out when asked (the
// replay command's default), counted; the objects its main step reads
// are then prepared by the replay itself.
func TestLeaveStagesOfAnOpLog(t *testing.T) {
	lines := `{"time":"2026-01-02T03:04:05Z","op":"PUT","key":"k1","size":10,"latency_us":5,"worker":0,"step":"prepare"}
{"time":"2026-01-02T03:04:06Z","op":"GET","key":"k1","size":10,"latency_us":5,"worker":0,"step":"main [c=4] #2"}
{"time":"2026-01-02T03:04:07Z","op":"DELETE","key":"k1","latency_us":5,"worker":0,"step":"cleanup"}
`
	path := filepath.Join(t.TempDir(), "ops.jsonl")
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := plan.New(plan.Options{Paths: []string{path}, Speed: 1, Namespace: "objbench/run/", LeaveStages: []string{"prepare", "cleanup"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	info := p.Info([]string{path})
	if p.Issued() != 1 || p.Prepared() != 1 || len(info.Skipped) != 2 {
		t.Errorf("%d issued, %d prepared, skipped %v; want the GET alone, its object prepared, prepare and cleanup counted", p.Issued(), p.Prepared(), info.Skipped)
	}
}

// prepared lists the plan's objects to prepare, by key; each once, as
// many as the plan counts.
func prepared(t *testing.T, p *plan.Plan) map[string]int64 {
	t.Helper()
	objs, err := p.Prepare()
	if err != nil {
		t.Fatal(err)
	}
	defer objs.Close()
	got := map[string]int64{}
	for {
		o, ok := objs.Next()
		if !ok {
			break
		}
		if _, dup := got[o.Key]; dup {
			t.Errorf("%s prepared twice", o.Key)
		}
		got[o.Key] = o.Size
	}
	if err := objs.Err(); err != nil {
		t.Fatal(err)
	}
	if p.Prepared() != int64(len(got)) {
		t.Errorf("prepare list: %d counted for %d listed", p.Prepared(), len(got))
	}
	return got
}

// An op log's prepare step, left out of the replay, wrote the objects its
// main step deletes or lists with their sizes: the replay prepares them
// with those sizes, not --default-size.
func TestPrepareTakesSizesFromTheLeftOutPrepareStep(t *testing.T) {
	lines := `{"time":"2026-01-02T03:04:05Z","op":"PUT","key":"k1","size":1000,"latency_us":5,"worker":0,"step":"prepare"}
{"time":"2026-01-02T03:04:05.1Z","op":"PUT","key":"k2","size":2000,"latency_us":5,"worker":0,"step":"prepare"}
{"time":"2026-01-02T03:04:05.2Z","op":"PUT","key":"k3","size":3000,"latency_us":5,"worker":0,"step":"prepare","error":"timeout"}
{"time":"2026-01-02T03:04:06Z","op":"DELETE","key":"k1","latency_us":5,"worker":0,"step":"main"}
{"time":"2026-01-02T03:04:06.1Z","op":"STAT","key":"k2","latency_us":5,"worker":0,"step":"main"}
{"time":"2026-01-02T03:04:06.2Z","op":"DELETE","key":"k3","latency_us":5,"worker":0,"step":"main"}
{"time":"2026-01-02T03:04:07Z","op":"DELETE","key":"k2","latency_us":5,"worker":0,"step":"cleanup"}
`
	path := filepath.Join(t.TempDir(), "ops.jsonl")
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := plan.New(plan.Options{Paths: []string{path}, Speed: 1, Namespace: "objbench/run/", DefaultSize: 64 << 10,
		LeaveStages: []string{"prepare", "cleanup"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	// k3's prepare PUT failed: the log does not know its size.
	want := map[string]int64{"objbench/run/replay/k1": 1000, "objbench/run/replay/k2": 2000, "objbench/run/replay/k3": 64 << 10}
	if got := prepared(t, p); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("prepared %v, want %v", got, want)
	}
	if p.DefaultSized() != 1 {
		t.Errorf("%d objects prepared at the default size, want 1 (k3)", p.DefaultSized())
	}
}

// A key first seen in a HEAD (no size in CloudTrail or a MinIO trace) or
// a DELETE takes its size from a later read of it in the log; a write
// before any such read settles it at --default-size, and so does the end
// of the log or the look-ahead's bound.
func TestPrepareLooksAheadForSizes(t *testing.T) {
	path := writeLog(t,
		"0 STAT a 0", "10 STAT b 0", "20 STAT c 0", "30 RANGE-GET d 0",
		"40 GET gone 0 NoSuchKey",
		"50 GET a 3000", "60 PUT b 10", "70 GET b 10", "80 STAT d 9000", "90 STAT e 0", "100 GET gone 0")
	// d's range [100, 200) comes from the log line's size field: none.
	want := map[string]int64{"a": 3000, "b": 4096, "c": 4096, "d": 9000, "e": 4096}
	for _, lookAhead := range []int{0, 1} {
		p, err := plan.New(plan.Options{Paths: []string{path}, Speed: 1, Namespace: "objbench/run/", DefaultSize: 4096, LookAhead: lookAhead})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int64{}
		for k, n := range prepared(t, p) {
			got[strings.TrimPrefix(k, "objbench/run/replay/")] = n
		}
		w := want
		if lookAhead == 1 { // one pending object at a time: a, b and c are settled before their reads come
			w = map[string]int64{"a": 4096, "b": 4096, "c": 4096, "d": 9000, "e": 4096}
		}
		if fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("look-ahead %d: prepared %v, want %v", lookAhead, got, w)
		}
		p.Close()
	}
}

// An op log of a closed-loop run (worker ids, no intended starts) replays
// closed loop on the most requests it had in flight at once; anything
// else, or --loop open, open loop on DefaultConcurrency; -c wins.
func TestLoopFollowsTheLog(t *testing.T) {
	closed := writeLog(t, "0 PUT a 10", "0 PUT b 10", "0 PUT c 10", "5 GET a 10", "5 GET b 10")
	open := filepath.Join(t.TempDir(), "open.jsonl")
	if err := os.WriteFile(open, []byte(`{"time":"2026-01-02T03:04:05Z","intended":"2026-01-02T03:04:05Z","op":"PUT","key":"k","size":1,"latency_us":5,"worker":0}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path  string
		o     plan.Options
		loop  plan.Loop
		conc  int
		paced bool
	}{
		{closed, plan.Options{Speed: 1}, plan.LoopClosed, 3, true},
		{closed, plan.Options{Speed: 1, Concurrency: 2}, plan.LoopClosed, 2, true},
		{closed, plan.Options{Speed: 1, Loop: plan.LoopOpen}, plan.LoopOpen, plan.DefaultConcurrency, false},
		{closed, plan.Options{Speed: 0}, "", plan.DefaultConcurrency, false},
		{open, plan.Options{Speed: 1}, plan.LoopOpen, plan.DefaultConcurrency, false},
		{open, plan.Options{Speed: 1, Loop: plan.LoopClosed}, plan.LoopClosed, 1, true},
	} {
		c.o.Paths, c.o.Namespace = []string{c.path}, "objbench/run/"
		p, err := plan.New(c.o)
		if err != nil {
			t.Fatal(err)
		}
		rp := p.Replay(nil, nil, 0)
		if p.Loop() != c.loop || p.Concurrency() != c.conc || rp.Paced != c.paced || p.Workers(0) < c.conc {
			t.Errorf("%s %+v: loop %q, %d workers, paced %v; want %q, %d, %v", filepath.Base(c.path), c.o, p.Loop(), p.Concurrency(), rp.Paced, c.loop, c.conc, c.paced)
		}
		p.Close()
	}
}
