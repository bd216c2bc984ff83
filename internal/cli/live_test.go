package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/cli"
	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/report/live"
	"github.com/objbench/objbench/result"
)

// watchedWriter is stderr for a command running in another goroutine: it
// hands over the live view's address once the command prints it.
type watchedWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	addr chan string
	sent bool
}

var liveNote = regexp.MustCompile(`live view: (http://127\.0\.0\.1:\d+/)`)

func (w *watchedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if m := liveNote.FindStringSubmatch(w.buf.String()); m != nil && !w.sent {
		w.sent = true
		w.addr <- m[1]
	}
	return len(p), nil
}

func (w *watchedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// TestListenServesTheRunLive follows a 3 s run with --listen 127.0.0.1:0
// as a user would: the printed address answers, the event stream brings
// the seconds in order, /metrics grows while the run goes and, read after
// the final event, counts exactly the ops of the result file. When the
// page disconnects the command ends and the port is closed.
func TestListenServesTheRunLive(t *testing.T) {
	const wait = 30 * time.Second
	out := filepath.Join(t.TempDir(), "r.json")
	stderr := &watchedWriter{addr: make(chan string, 1)}
	var stdout bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- cli.Execute(context.Background(), cli.Env{
			Args: []string{"get", "--listen", "127.0.0.1:0", "--duration", "3s", "--objects", "20", "--size", "4KiB",
				"--concurrency", "2", "--out", out},
			Stdout: &stdout, Stderr: stderr, Getenv: func(string) string { return "" },
		})
	}()
	var base string
	select {
	case base = <-stderr.addr:
	case c := <-code:
		t.Fatalf("exit %d before printing the live view's address:\n%s", c, stderr)
	case <-time.After(wait):
		t.Fatalf("no live view address within %v:\n%s", wait, stderr)
	}

	sse := testenv.OpenSSE(t, base+"events")
	var prev live.Event
	var grew []float64
	var end live.Event
	for n := 0; end.Outcome == ""; n++ {
		if n > 100 {
			t.Fatal("100 events without the end of a 3 s run")
		}
		ev := sse.Next(t, wait)
		var e live.Event
		if err := json.Unmarshal([]byte(ev.Data), &e); err != nil {
			t.Fatalf("event %q: %v", ev.Type, err)
		}
		switch {
		case ev.Type == "end":
			end = e
		case ev.Type == "second" && strings.HasPrefix(e.Label, "main"):
			if prev.Label != "" && strings.HasPrefix(prev.Label, "main") && e.T <= prev.T {
				t.Errorf("second %d came after second %d", e.T, prev.T)
			}
			if m := testenv.Metric(testenv.Scrape(t, base+"metrics"), "objbench_ops_total", "stage", "main", "op", "GET"); m != nil {
				grew = append(grew, m.GetCounter().GetValue())
			}
		}
		if ev.Type != "end" && ev.Type != "state" && e.RunS < prev.RunS {
			t.Errorf("event %d at %v s after one at %v s", e.Seq, e.RunS, prev.RunS)
		}
		prev = e
	}
	if len(grew) < 2 || grew[len(grew)-1] <= grew[0] {
		t.Errorf("objbench_ops_total for main's GETs while they ran: %v, want at least two growing scrapes", grew)
	}
	final := testenv.Scrape(t, base+"metrics") // the page is still connected: the server waits for it
	sse.Close()

	select {
	case c := <-code:
		if c != 0 {
			t.Fatalf("exit %d:\n%s", c, stderr)
		}
	case <-time.After(time.Minute):
		t.Fatal("the command did not end within a minute of its page disconnecting")
	}
	res, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	var ops int64
	for i, step := range res.Steps {
		for _, st := range step.Streams {
			for _, tot := range st.Totals {
				lv := []string{"stage", step.Stage, "step", strconv.Itoa(i), "op", tot.Op}
				h, c := testenv.Metric(final, "objbench_latency_seconds", lv...), testenv.Metric(final, "objbench_ops_total", lv...)
				switch {
				case h == nil || c == nil:
					t.Errorf("/metrics after the run lacks %v", lv)
				case h.GetHistogram().GetSampleCount() != uint64(tot.OK) || c.GetCounter().GetValue() != float64(tot.Ops):
					t.Errorf("%v: histogram _count %d, ops_total %v; the result file has %d ok of %d ops", lv,
						h.GetHistogram().GetSampleCount(), c.GetCounter().GetValue(), tot.OK, tot.Ops)
				}
				ops += tot.Ops
			}
		}
	}
	if end.Outcome != "completed" || end.OpsTotal != ops {
		t.Errorf("final event: %q, %d ops; want completed, %d ops (the result file)", end.Outcome, end.OpsTotal, ops)
	}
	host := strings.TrimSuffix(strings.TrimPrefix(base, "http://"), "/")
	if c, err := net.DialTimeout("tcp", host, time.Second); err == nil {
		c.Close()
		t.Errorf("%s still accepts connections after the command ended", host)
	}
}

// TestListenBadAddressExitsTwo: a bad --listen stops the command with
// exit code 2 naming the value, before the embedded server starts.
func TestListenBadAddressExitsTwo(t *testing.T) {
	for _, addr := range []string{"nonsense", "127.0.0.1:99999", "127.0.0.1:http-ish"} {
		code, stdout, errs := execute(t, nil, "get", "--listen", addr, "--ops", "10", "--out", filepath.Join(t.TempDir(), "r.json"))
		if code != 2 || !strings.Contains(errs, "--listen "+addr) || strings.Contains(errs, "embedded") || stdout != "" {
			t.Errorf("--listen %s: exit %d, stdout %q, stderr %q; want 2 and the value named before any work", addr, code, stdout, errs)
		}
	}
}

// TestListenQuietPrintsOnlyTheTable: --quiet keeps its promise with
// --listen (the address note is a note like the others).
func TestListenQuietPrintsOnlyTheTable(t *testing.T) {
	code, stdout, errs := execute(t, nil, "get", "--quiet", "--listen", "127.0.0.1:0", "--ops", "50", "--objects", "10",
		"--out", filepath.Join(t.TempDir(), "r.json"))
	if code != 0 || errs != "" || !strings.Contains(stdout, "GET") {
		t.Errorf("exit %d, stderr %q, stdout %q; want 0, nothing on stderr, the table", code, errs, stdout)
	}
}
