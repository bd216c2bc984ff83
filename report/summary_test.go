package report

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

func TestSummaryJSONGolden(t *testing.T) {
	r := synthRun(t, "run-1", 1, 2*time.Millisecond, 3*time.Millisecond, 3)
	var buf bytes.Buffer
	if err := WriteJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(buf.Bytes(), []byte(`"seconds"`)) {
		t.Error("the summary carries the per-second records")
	}
	golden(t, "summary.json.golden", buf.Bytes())
}

// The interval log must read back, with hdrhistogram-go's own reader, to
// the same distribution the table reports.
func TestHDRLogReadsBack(t *testing.T) {
	r := synthRun(t, "run-1", 1, 2*time.Millisecond, 3*time.Millisecond, 4)
	if ops := LoggedOps(r); strings.Join(ops, ",") != "GET,STAT" {
		t.Fatalf("LoggedOps = %v", ops)
	}
	var buf bytes.Buffer
	if err := WriteHDRLog(&buf, r, "GET"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(buf.String(), "\n")
	for i, l := range lines { // a step's header names it and heads its intervals
		if strings.HasPrefix(l, "#step") && (i+1 == len(lines) || strings.HasPrefix(lines[i+1], "#") || !strings.Contains(l, "conc")) {
			t.Errorf("header %q heads no interval, or does not name the step", l)
		}
	}
	rd := hdr.NewHistogramLogReader(&buf)
	merged := hdr.New(1, int64(time.Hour/time.Microsecond), 3)
	intervals := 0
	for {
		h, err := rd.NextIntervalHistogram()
		if errors.Is(err, io.EOF) || (err == nil && h == nil) {
			break
		}
		if err != nil {
			t.Fatalf("interval %d: %v", intervals, err)
		}
		merged.Merge(h)
		intervals++
	}
	want := r.Steps[0].Streams[0].Totals[0].Latency
	if intervals != 4 || merged.TotalCount() != want.Count || merged.ValueAtQuantile(99) != want.P99 {
		t.Errorf("read back %d intervals, %d values, p99 %d; want 4, %d, %d", intervals, merged.TotalCount(),
			merged.ValueAtQuantile(99), want.Count, want.P99)
	}
}
