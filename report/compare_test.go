package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/result"
)

// synthRun simulates a closed-loop run of workers alternating GET (1 MiB)
// and STAT for secs seconds, each op taking base plus an exponential share
// of mean, and returns it as Read would.
func synthRun(t *testing.T, id string, seed uint64, base, mean time.Duration, secs int) *result.Run {
	t.Helper()
	start := goldenT0
	s := metrics.NewSeries(start)
	rng := rand.New(rand.NewPCG(seed, 7))
	end := start.Add(time.Duration(secs) * time.Second)
	for w := 0; w < 4; w++ {
		rec := s.NewRecorder()
		now := start.Add(time.Duration(w) * 13 * time.Millisecond) // staggered starts: a real ramp-up
		for i := 0; ; i++ {
			d := base + time.Duration(rng.ExpFloat64()*float64(mean))
			if now.Add(d).After(end) {
				break
			}
			res := &metrics.Result{Op: metrics.OpGet, Start: now, End: now.Add(d), Bytes: 1 << 20}
			if i%2 == 1 {
				res.Op, res.Bytes = metrics.OpStat, 0
			}
			rec.Record(res)
			now = now.Add(d)
		}
	}
	seconds, window := s.Finish()
	stream := result.Stream{Name: "main", Concurrency: 4, StoppedBy: "duration", Seconds: seconds, Window: window}
	r := &result.Run{RunInfo: result.RunInfo{Schema: result.Version, RunID: id}, Steps: []result.Step{{Stage: "main", Step: 0,
		Start: start, Elapsed: time.Duration(secs) * time.Second, Streams: []result.Stream{stream}}}}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	out, err := result.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCompareSignificance(t *testing.T) {
	base := synthRun(t, "base", 1, 2*time.Millisecond, 3*time.Millisecond, 20)
	faster := synthRun(t, "faster", 2, 1*time.Millisecond, 2*time.Millisecond, 20)
	same := synthRun(t, "same", 3, 2*time.Millisecond, 3*time.Millisecond, 20)
	short := synthRun(t, "short", 4, 1*time.Millisecond, 2*time.Millisecond, 3)
	c := Compare(base, faster, same, short)
	if len(c.Rows) != 2 || c.Rows[0].Op != "GET" || c.Rows[1].Op != "STAT" {
		t.Fatalf("rows = %+v", c.Rows)
	}
	for _, row := range c.Rows {
		if n := len(row.Runs[0].OpsPerSec[0]); n < 18 || n > 20 {
			t.Errorf("%s: %d per-second samples from a 20 s run", row.Op, n)
		}
		fast, noise, few := row.Changes[0], row.Changes[1], row.Changes[2]
		for _, m := range []Metric{MetricThroughput, MetricOps, MetricP50, MetricP90, MetricP99} {
			if fast[m].Sig != Significant {
				t.Errorf("%s %s: faster run's %+.1f%% (p=%.3g) not significant", row.Op, m, fast[m].Pct, fast[m].P)
			}
			if noise[m].Sig == Significant {
				t.Errorf("%s %s: same distribution's %+.1f%% (p=%.3g) called significant", row.Op, m, noise[m].Pct, noise[m].P)
			}
		}
		if fast[MetricThroughput].Pct < 30 || fast[MetricP50].Pct > -20 {
			t.Errorf("%s: faster run: throughput %+.1f%%, p50 %+.1f%%", row.Op, fast[MetricThroughput].Pct, fast[MetricP50].Pct)
		}
		if few[MetricOps].Sig != Untested || few[MetricMax].Sig != Untested {
			t.Errorf("%s: a 3 s run's rates are %v, want untested", row.Op, few[MetricOps].Sig)
		}
	}
	if c.Rows[1].Changes[0][MetricThroughput] != c.Rows[1].Changes[0][MetricOps] {
		t.Error("STAT moves no bytes: its throughput must be its ops/s")
	}
}

func TestCompareTableGolden(t *testing.T) {
	c := Compare(synthRun(t, "base", 1, 2*time.Millisecond, 3*time.Millisecond, 10),
		synthRun(t, "faster", 2, 1*time.Millisecond, 2*time.Millisecond, 10),
		synthRun(t, "same", 3, 2*time.Millisecond, 3*time.Millisecond, 10))
	var buf bytes.Buffer
	if err := WriteCompareTable(&buf, c); err != nil {
		t.Fatal(err)
	}
	golden(t, "compare.golden", buf.Bytes())
}

func TestCompareMissingRow(t *testing.T) {
	base := synthRun(t, "base", 1, 2*time.Millisecond, 3*time.Millisecond, 6)
	other := synthRun(t, "other", 2, 2*time.Millisecond, 3*time.Millisecond, 6)
	other.Steps[0].Stage = "renamed"
	c := Compare(base, other)
	if len(c.Rows) != 4 {
		t.Fatalf("%d rows, want 4 (two ops in two unmatched steps)", len(c.Rows))
	}
	if c.Rows[0].Runs[1] != nil || c.Rows[2].Runs[0] != nil {
		t.Error("unmatched rows must leave the missing run nil")
	}
	if v := c.Check([]Threshold{{Metric: MetricThroughput, Pct: -1}}); len(v) != 0 {
		t.Errorf("unmatched rows crossed a threshold: %v", v)
	}
	var buf bytes.Buffer
	if err := WriteCompareTable(&buf, c); err != nil || !strings.Contains(buf.String(), "missing") {
		t.Errorf("table does not say a row is missing (%v):\n%s", err, buf.String())
	}
}

func TestThresholds(t *testing.T) {
	base := synthRun(t, "base", 1, 2*time.Millisecond, 3*time.Millisecond, 10)
	c := Compare(base, synthRun(t, "faster", 2, 1*time.Millisecond, 2*time.Millisecond, 10),
		synthRun(t, "same", 3, 2*time.Millisecond, 3*time.Millisecond, 10))
	c.Labels = []string{"a.json", "b.json", "c.json"}
	for _, tc := range []struct {
		expr  string
		fails int
	}{
		{"p99>+10%", 0},
		{"throughput<-5%", 0},
		{"p50<-10%", 2},      // faster: GET and STAT
		{"GET:p50<-10%", 1},  // op filter
		{"stat:ops>+20%", 1}, // case-insensitive op
		{"throughput>+1000%", 0},
		{"errors>+0%", 0},
	} {
		th, err := ParseThreshold(tc.expr)
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		v := c.Check([]Threshold{th})
		if len(v) != tc.fails {
			t.Errorf("%s: %d violations, want %d", tc.expr, len(v), tc.fails)
		}
		for _, x := range v {
			if s := x.String(c.Labels); !strings.Contains(s, "b.json") || !strings.Contains(s, tc.expr) {
				t.Errorf("violation %q does not name the run and the rule", s)
			}
		}
	}
	for _, bad := range []string{"p99>10", "p98>+10%", "FOO:p99>+10%", "p99=+10%", "", "throughput<-5%%"} {
		if _, err := ParseThreshold(bad); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("threshold %q", bad)) {
			t.Errorf("%q: error %v, want one naming the expression", bad, err)
		}
	}
}
