package replay_test

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/replay"
)

var accessOps = []string{"REST.GET.OBJECT", "REST.GET.OBJECT", "REST.GET.OBJECT", "REST.PUT.OBJECT", "REST.HEAD.OBJECT", "REST.DELETE.OBJECT"}

// accessLog is a reader of n generated access log lines, made as they are
// read: a trace of any length in constant memory.
type accessLog struct {
	n, i int
	buf  bytes.Buffer
}

func (a *accessLog) Read(p []byte) (int, error) {
	for a.buf.Len() < len(p) && a.i < a.n {
		e := accessEntry{Time: t0.Add(time.Duration(a.i) * time.Millisecond), Bucket: "bench", Op: accessOps[a.i%len(accessOps)],
			Key: fmt.Sprintf("data/%07d.bin", a.i*7919%100003), Status: 200, Sent: int64(a.i % 5000), Size: int64(a.i % 5000), Total: 12, Turn: 3}
		a.buf.WriteString(e.line())
		a.buf.WriteByte('\n')
		a.i++
	}
	if a.buf.Len() == 0 {
		return 0, io.EOF
	}
	return a.buf.Read(p)
}

// opLog is a reader of n generated op log lines, in the form oplog's
// Writer writes (encoded here, so the generator has no goroutine of its
// own).
type opLog struct {
	n, i int
	buf  bytes.Buffer
}

func (o *opLog) Read(p []byte) (int, error) {
	for o.buf.Len() < len(p) && o.i < o.n {
		fmt.Fprintf(&o.buf, `{"time":"%s","op":"%s","bucket":"bench","key":"objbench/run/data/%07d","size":%d,"status":200,`+
			`"latency_us":812,"ttfb_us":640,"worker":%d,"stream":"main"}`+"\n",
			t0.Add(time.Duration(o.i)*time.Millisecond).Format(time.RFC3339Nano), metrics.Op(o.i%4), o.i*7919%100003, o.i%5000+1, o.i%16)
		o.i++
	}
	if o.buf.Len() == 0 {
		return 0, io.EOF
	}
	return o.buf.Read(p)
}

func generated(format replay.Format, n int) io.Reader {
	if format == replay.FormatOpLog {
		return &opLog{n: n}
	}
	return &accessLog{n: n}
}

// BenchmarkParse is how many lines a second replay reads, parsing only
// (the lines are generated once, before the timer).
//
//	go test ./replay/ -run '^$' -bench Parse -benchtime 5x
func BenchmarkParse(b *testing.B) {
	const lines = 200000
	for _, f := range []replay.Format{replay.FormatS3Access, replay.FormatOpLog} {
		b.Run(string(f), func(b *testing.B) {
			data, err := io.ReadAll(generated(f, lines))
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				r, err := replay.NewReader("bench", bytes.NewReader(data), replay.Options{Format: replay.FormatAuto})
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for r.Next() {
					n++
				}
				if r.Err() != nil || n != lines {
					b.Fatalf("%d records, err %v", n, r.Err())
				}
			}
			b.ReportMetric(float64(lines*b.N)/b.Elapsed().Seconds(), "lines/s")
		})
	}
}

// TestMillionLinesInBoundedMemory streams a generated 1,000,000-line trace
// of each line format and checks the heap in use stays small throughout.
func TestMillionLinesInBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams two million lines")
	}
	const lines, limit = 1_000_000, 24 << 20
	for _, f := range []replay.Format{replay.FormatS3Access, replay.FormatOpLog} {
		t.Run(string(f), func(t *testing.T) {
			r, err := replay.NewReader("generated", generated(f, lines), replay.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var ms runtime.MemStats
			var peak uint64
			n := 0
			for r.Next() {
				if n++; n%200_000 == 0 {
					runtime.GC()
					runtime.ReadMemStats(&ms)
					peak = max(peak, ms.HeapInuse)
				}
			}
			if r.Err() != nil || n != lines {
				t.Fatalf("%d records, err %v", n, r.Err())
			}
			if peak > limit {
				t.Errorf("heap in use reached %d MiB reading %d lines, want under %d MiB", peak>>20, lines, limit>>20)
			}
			t.Logf("%s: %d lines, heap in use at most %.1f MiB", f, n, float64(peak)/(1<<20))
		})
	}
}
