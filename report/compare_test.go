package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
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

// synthRuns are n runs of one kind (synthRun), of seeds from seed on.
func synthRuns(t *testing.T, id string, seed uint64, n int, base, mean time.Duration) []*result.Run {
	var out []*result.Run
	for i := range n {
		out = append(out, synthRun(t, id, seed+uint64(i)*100, base, mean, 5))
	}
	return out
}

// Sides of five runs: a faster side is found faster, the same runs again
// are no change, and a side of one run is not tested. (How often noise is
// called significant is TestSignificanceOverRuns's to measure.)
func TestCompareSignificance(t *testing.T) {
	base := synthRuns(t, "base", 1, 5, 2*time.Millisecond, 3*time.Millisecond)
	faster := synthRuns(t, "faster", 2, 5, 1*time.Millisecond, 2*time.Millisecond)
	same := synthRuns(t, "same", 1, 5, 2*time.Millisecond, 3*time.Millisecond)
	one := synthRuns(t, "one", 4, 1, 1*time.Millisecond, 2*time.Millisecond)
	c := CompareSides(base, faster, same, one)
	if len(c.Rows) != 2 || c.Rows[0].Op != "GET" || c.Rows[1].Op != "STAT" {
		t.Fatalf("rows = %+v", c.Rows)
	}
	for _, row := range c.Rows {
		if n := len(row.Runs[0].PerRun); n != 5 {
			t.Errorf("%s: %d runs in the base side, want 5", row.Op, n)
		}
		fast, noise, single := row.Changes[0], row.Changes[1], row.Changes[2]
		for _, m := range []Metric{MetricThroughput, MetricOps, MetricP50, MetricP90, MetricP99} {
			if fast[m].Sig != Significant || fast[m].N1 != 5 || fast[m].N2 != 5 || math.IsNaN(fast[m].Lo) {
				t.Errorf("%s %s: faster side's %+.1f%% (p=%.3g) not significant over 5 and 5 runs", row.Op, m, fast[m].Pct, fast[m].P)
			}
			if fast[m].Lo > fast[m].Pct || fast[m].Hi < fast[m].Pct {
				t.Errorf("%s %s: the interval [%.1f, %.1f] does not hold the change %+.1f%%", row.Op, m, fast[m].Lo, fast[m].Hi, fast[m].Pct)
			}
			if noise[m].Sig != NotSignificant || noise[m].Pct != 0 {
				t.Errorf("%s %s: the same runs again: %+.1f%% (p=%.3g, %v)", row.Op, m, noise[m].Pct, noise[m].P, noise[m].Sig)
			}
			if single[m].Sig != Untested {
				t.Errorf("%s %s: a side of one run is %v, want untested", row.Op, m, single[m].Sig)
			}
		}
		if fast[MetricThroughput].Pct < 30 || fast[MetricP50].Pct > -20 {
			t.Errorf("%s: faster side: throughput %+.1f%%, p50 %+.1f%%", row.Op, fast[MetricThroughput].Pct, fast[MetricP50].Pct)
		}
		if fast[MetricMax].Sig != Untested {
			t.Errorf("%s: MAX is %v, want untested", row.Op, fast[MetricMax].Sig)
		}
	}
	if c.Rows[1].Changes[0][MetricThroughput] != c.Rows[1].Changes[0][MetricOps] {
		t.Error("STAT moves no bytes: its throughput must be its ops/s")
	}
	var buf bytes.Buffer
	if err := WriteCompareTable(&buf, c); err != nil || !strings.Contains(buf.String(), "significant changes (95% confidence interval") ||
		strings.HasPrefix(buf.String(), "significance needs") {
		t.Errorf("table (%v):\n%s", err, buf.String())
	}
}

// One run a side: nothing is tested, and the first line says so.
func TestCompareOneRunASideSaysItNeedsRuns(t *testing.T) {
	c := Compare(synthRun(t, "a", 1, 2*time.Millisecond, 3*time.Millisecond, 10), synthRun(t, "b", 2, 1*time.Millisecond, 2*time.Millisecond, 10))
	var buf bytes.Buffer
	if err := WriteCompareTable(&buf, c); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "significance needs 4 runs a side (here 1, 1)") || strings.Contains(buf.String(), "% *") {
		t.Errorf("table:\n%s", buf.String())
	}
}

func TestCompareTableGolden(t *testing.T) {
	c := CompareSides(synthRuns(t, "base", 1, 4, 2*time.Millisecond, 3*time.Millisecond),
		synthRuns(t, "faster", 2, 4, 1*time.Millisecond, 2*time.Millisecond),
		synthRuns(t, "same", 3, 4, 2*time.Millisecond, 3*time.Millisecond))
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
