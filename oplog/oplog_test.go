package oplog_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/oplog"
	"github.com/objbench/objbench/storage"
)

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 123456789, time.UTC)

// sample is record i of worker w: every field set, some not.
func sample(w, i int) oplog.Record {
	r := oplog.Record{
		Start:   t0.Add(time.Duration(i) * time.Millisecond),
		Op:      metrics.Op(i % int(metrics.NumOps)),
		Bucket:  "bench",
		Key:     fmt.Sprintf("objbench/run/w%d/%d", w, i),
		Size:    int64(i * 100),
		Latency: time.Duration(i%1000+1) * time.Microsecond,
		Stream:  "main",
		Worker:  w,
	}
	if i%2 == 0 {
		r.Step = "main step 2"
	}
	if r.Op == metrics.OpRangeGet {
		r.Range = storage.Range{Offset: int64(i), Length: 512}
	}
	if i%3 == 0 {
		r.TTFB = 7 * time.Microsecond
		r.Intended = r.Start.Add(-time.Millisecond)
	}
	if i%10 == 7 {
		r.Status, r.Class = 503, "http_503"
	}
	return r
}

func TestConcurrentWritersEveryRecordBackOnce(t *testing.T) {
	const workers, each = 16, 2000
	for _, name := range []string{"ops.jsonl", "ops.jsonl.gz", "ops.jsonl.zst"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			w, err := oplog.Create(path, oplog.Options{Shards: 3, BufferSize: 4096})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("%s exists before Close (err %v)", name, err)
			}
			var wg sync.WaitGroup
			for k := range workers {
				wg.Go(func() {
					for i := range each {
						rec := sample(k, i)
						w.Record(k, &rec)
					}
				})
			}
			wg.Wait()
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			seen := readAll(t, path)
			if len(seen) != workers*each {
				t.Fatalf("read %d records, wrote %d", len(seen), workers*each)
			}
			for k := range workers {
				for i := range each {
					want := sample(k, i)
					got, ok := seen[want.Key]
					if !ok {
						t.Fatalf("record %s missing", want.Key)
					}
					if !equal(got, want) {
						t.Fatalf("record %s:\n got %+v\nwant %+v", want.Key, got, want)
					}
				}
			}
		})
	}
}

func equal(a, b oplog.Record) bool {
	return a.Start.Equal(b.Start) && a.Intended.Equal(b.Intended) && a.Op == b.Op && a.Bucket == b.Bucket &&
		a.Key == b.Key && a.Size == b.Size && a.Range == b.Range && a.Status == b.Status && a.Class == b.Class &&
		a.Latency == b.Latency && a.TTFB == b.TTFB && a.Worker == b.Worker && a.Stream == b.Stream && a.Step == b.Step
}

func readAll(t *testing.T, path string) map[string]oplog.Record {
	t.Helper()
	r, err := oplog.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out := map[string]oplog.Record{}
	for {
		var rec oplog.Record
		err := r.Next(&rec)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if _, dup := out[rec.Key]; dup {
			t.Fatalf("record %s twice", rec.Key)
		}
		out[rec.Key] = rec
	}
}

func TestKeysOfAnyBytesStayValidJSON(t *testing.T) {
	keys := []string{`a"b`, `back\slash`, "new\nline", "tab\there", "ctl\x01\x1f", "bad\xff\xfeutf8", "ünïcode/日本", ""}
	var buf bytes.Buffer
	w, err := oplog.NewWriter(&buf, 0, oplog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range keys {
		rec := oplog.Record{Start: t0, Op: metrics.OpPut, Key: k, Bucket: "b\"q"}
		w.Record(i, &rec)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != len(keys) {
		t.Fatalf("%d lines for %d records", len(lines), len(keys))
	}
	got := map[string]bool{}
	r, _ := oplog.NewReader(&buf)
	for _, line := range lines {
		var v struct{ Key string }
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("line %q is not JSON: %v", line, err)
		}
		var rec oplog.Record
		if err := r.Next(&rec); err != nil {
			t.Fatal(err)
		}
		if rec.Key != v.Key || rec.Bucket != `b"q` {
			t.Errorf("oplog read key %q bucket %q, encoding/json %q", rec.Key, rec.Bucket, v.Key)
		}
		got[rec.Key] = true
	}
	for _, k := range keys {
		if want := viaEncodingJSON(t, k); !got[want] {
			t.Errorf("key %q did not come back as %q", k, want)
		}
	}
}

func TestReaderTakesAnyFieldOrderAndGoesOnAfterABadLine(t *testing.T) {
	in := strings.Join([]string{
		`{"op":"GET","unknown":{"a":[1,2,{"b":null}]},"key":"k1","time":"2026-03-01T10:00:00+01:00","size":1.0e3}`,
		`not json`,
		``,
		`{"time":"2026-03-01T10:00:00Z","op":"FLY","key":"k"}`,
		`{"time":"2026-03-01T10:00:00Z","key":"no-op"}`,
		`{"time":"2026-03-01T10:00:01.5Z","op":"head","key":"k\u00e9\ud83d\ude00","range":[10,20],"worker":4}`,
	}, "\n")
	r, err := oplog.NewReader(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var recs []oplog.Record
	var bad []int
	for {
		var rec oplog.Record
		err := r.Next(&rec)
		if err == io.EOF {
			break
		}
		var le *oplog.LineError
		if errors.As(err, &le) {
			bad = append(bad, le.Line)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	if fmt.Sprint(bad) != "[2 4 5]" {
		t.Errorf("bad lines %v, want [2 4 5]", bad)
	}
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2", len(recs))
	}
	if r0 := recs[0]; r0.Op != metrics.OpGet || r0.Size != 1000 || !r0.Start.Equal(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)) {
		t.Errorf("first record %+v", r0)
	}
	if r1 := recs[1]; r1.Op != metrics.OpStat || r1.Key != "ké😀" || r1.Range != (storage.Range{Offset: 10, Length: 20}) || r1.Worker != 4 ||
		r1.Start.Nanosecond() != 5e8 {
		t.Errorf("second record %+v", r1)
	}
}

// viaEncodingJSON is what encoding/json makes of s: invalid bytes become
// U+FFFD one by one.
func viaEncodingJSON(t *testing.T, s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var out string
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n++; f.n > 1 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

func TestWriteFailureIsReportedAndNeverBlocksWorkers(t *testing.T) {
	w, err := oplog.NewWriter(&failWriter{}, 0, oplog.Options{Shards: 1, BufferSize: 256})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10000 {
		rec := sample(0, i)
		w.Record(0, &rec)
	}
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Close = %v, want the write error", err)
	}
	if w.Err() == nil {
		t.Error("Err() is nil after a failed write")
	}
}

func TestRecordAfterCloseIsCountedNotLost(t *testing.T) {
	w, _ := oplog.NewWriter(io.Discard, 0, oplog.Options{})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rec := sample(0, 1)
	w.Record(0, &rec)
	if err := w.Close(); err == nil {
		t.Error("second Close gave no error")
	}
}

func TestSetError(t *testing.T) {
	var r oplog.Record
	r.SetError(&storage.OpError{Op: "get", Key: "k", Err: &storage.StatusError{StatusCode: 503, Code: "SlowDown"}})
	if r.Status != 503 || r.Class != "http_503" {
		t.Errorf("503: status %d class %q", r.Status, r.Class)
	}
	r.SetError(nil)
	if r.Status != 0 || r.Class != "" {
		t.Errorf("nil: status %d class %q", r.Status, r.Class)
	}
}

func TestPeriodicFlushHandsBuffersOverWithoutClose(t *testing.T) {
	pw := &testenv.Buffer{}
	w, _ := oplog.NewWriter(pw, 0, oplog.Options{FlushInterval: 10 * time.Millisecond})
	rec := sample(1, 1)
	w.Record(1, &rec)
	deadline := time.Now().Add(5 * time.Second)
	for pw.Len() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond) // polling a condition, with a deadline
	}
	if pw.Len() == 0 {
		t.Error("a record stayed buffered 5 s with a 10 ms flush interval")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
