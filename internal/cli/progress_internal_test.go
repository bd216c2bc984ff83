package cli

import (
	"bytes"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/workload"
)

func latency(t *testing.T, us ...int64) string { return testenv.Histogram(t, us...) }

func TestProgressLines(t *testing.T) {
	st := workload.Stage{Name: "main", Kind: result.KindMain, Streams: []workload.Stream{
		{Name: "a", Bounds: workload.Bounds{Duration: 5 * time.Second}}, {Name: "b"}}}
	sec := func(t int64, ops int64, lat string, errs int64) result.Second {
		o := result.OpSecond{Op: "GET", Ops: ops, Bytes: ops << 20, Latency: lat}
		if errs > 0 {
			o.Errors = map[string]int64{"timeout": errs}
		}
		return result.Second{T: t, Ops: []result.OpSecond{o}}
	}
	for _, c := range []struct {
		name       string
		tty, color bool
		want       string
	}{
		{"log", false, false, "objbench: main 1/1  1s/5s eta 4s  30 ops/s  30.0 MiB/s  p99 2.00ms  1 errors\n" +
			"objbench: main 1/1  2s/5s eta 3s  5 ops/s  5.0 MiB/s  0 errors\n"},
		{"terminal", true, true, "\r\x1b[K" + "main 1/1  1s/5s eta 4s  10 ops/s  10.0 MiB/s  p99 1.00ms  0 errors" +
			"\r\x1b[K" + "main 1/1  1s/5s eta 4s  30 ops/s  30.0 MiB/s  p99 2.00ms  \x1b[1;31m1 errors\x1b[0m" +
			"\r\x1b[K" + "main 1/1  2s/5s eta 3s  5 ops/s  5.0 MiB/s  0 errors" +
			"\r\x1b[K" + "main 1/1  3s/5s eta 2s  0 ops/s  0.0 MiB/s  0 errors" + "\r\x1b[K"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			p := newProgress(&out, c.tty, c.color)
			p.plainEvery = 1
			p.step(st, 0)
			p.second("a", sec(0, 10, latency(t, 1000), 0))
			p.second("b", sec(0, 20, latency(t, 2000), 1))
			p.second("a", sec(1, 5, "", 0))
			p.second("b", sec(0, 7, "", 0)) // late: already drawn
			p.second("b", sec(2, 0, "", 0))
			p.done()
			if got := out.String(); got != c.want {
				t.Errorf("got\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}

// Past its duration a step waits for its in-flight ops: the line says so
// and counts the grace down, instead of "7s/5s eta 0s".
func TestProgressDuringGrace(t *testing.T) {
	st := workload.Stage{Name: "main", Kind: result.KindMain, Streams: []workload.Stream{
		{Name: "a", Bounds: workload.Bounds{Duration: 5 * time.Second}}}}
	var out bytes.Buffer
	p := newProgress(&out, false, false)
	p.plainEvery, p.grace = 1, 10*time.Second
	p.step(st, 0)
	for i := int64(4); i <= 7; i++ {
		p.second("a", result.Second{T: i})
	}
	want := "objbench: main 1/1  5s/5s eta 0s  0 ops/s  0.0 MiB/s  0 errors\n" +
		"objbench: main 1/1  6s: 5s done, in-flight ops finishing (grace 9s left)  0 ops/s  0.0 MiB/s  0 errors\n" +
		"objbench: main 1/1  7s: 5s done, in-flight ops finishing (grace 8s left)  0 ops/s  0.0 MiB/s  0 errors\n"
	if got := out.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestQuietHasNoProgress(t *testing.T) {
	var nilProgress *progress
	nilProgress.done() // must not panic
	if p := withProgress(Env{Stderr: &bytes.Buffer{}, Getenv: func(string) string { return "" }}, true, nil); p != nil {
		t.Error("--quiet still draws progress")
	}
}

func TestProgressFitsTheTerminal(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(&out, true, true)
	p.width = 30
	p.step(workload.Stage{Name: "main", Streams: []workload.Stream{{Name: "a"}}}, 0)
	p.second("a", result.Second{T: 0, Ops: []result.OpSecond{{Op: "GET", Ops: 7, Errors: map[string]int64{"x": 1}}}})
	if got, want := out.String(), "\r\x1b[K"+"main 1/1  1s  7 ops/s  0.0 Mi"; got != want {
		t.Errorf("got %q, want %q (cut to the width, no colour codes cut in half)", got, want)
	}
}
