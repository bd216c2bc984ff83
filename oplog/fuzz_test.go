package oplog_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/oplog"
	"github.com/objbench/objbench/storage"
)

// FuzzReadLine: any line is read or refused as a LineError, never a
// panic; a line that is read writes back to a line that reads the same.
func FuzzReadLine(f *testing.F) {
	f.Add(`{"time":"2026-03-01T10:00:00.000123Z","op":"GET","bucket":"b","key":"k/1","size":4096,"status":200,"latency_us":812,"ttfb_us":640,"worker":3,"stream":"main"}`)
	f.Add(`{"op":"RANGE-GET","time":"2026-03-01T10:00:00+02:00","range":[1,2],"x":[{"y":"\u00e9"}],"key":"a\"b"}`)
	f.Add(`{"time":"2026-02-31T10:00:00Z","op":"PUT","key":""}`)
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsRune(line, '\n') {
			return
		}
		r, err := oplog.NewReader(strings.NewReader(line))
		if err != nil {
			return // a compressed stream's magic, then garbage
		}
		var rec oplog.Record
		err = r.Next(&rec)
		var le *oplog.LineError
		if err == io.EOF || errors.As(err, &le) || err != nil {
			return
		}
		var buf bytes.Buffer
		w, _ := oplog.NewWriter(&buf, 0, oplog.Options{})
		w.Record(rec.Worker, &rec)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		r2, _ := oplog.NewReader(&buf)
		var back oplog.Record
		if err := r2.Next(&back); err != nil {
			t.Fatalf("%q wrote %q, which reads as %v", line, buf.String(), err)
		}
		want := rec
		want.Latency = want.Latency.Truncate(time.Microsecond)
		want.TTFB = want.TTFB.Truncate(time.Microsecond)
		if want.Size < 0 {
			want.Size = 0
		}
		if want.Status < 0 {
			want.Status = 0
		}
		if want.Latency < 0 {
			want.Latency = 0
		}
		if want.TTFB < 0 {
			want.TTFB = 0
		}
		if want.Range.Length <= 0 {
			want.Range = storage.Range{}
		}
		if !equal(back, want) && validUTF8Fields(rec) {
			t.Fatalf("%q read as\n%+v, written as %q, read back as\n%+v", line, want, buf.String(), back)
		}
	})
}

func validUTF8Fields(r oplog.Record) bool {
	return strings.ToValidUTF8(r.Key+r.Bucket+r.Stream+r.Class, "") == r.Key+r.Bucket+r.Stream+r.Class
}

// FuzzRoundTrip: whatever a worker records comes back as it was (keys
// with invalid UTF-8 come back with U+FFFD in place of each bad byte).
func FuzzRoundTrip(f *testing.F) {
	f.Add("bucket", "key/with space", int64(4096), int64(0), int64(0), 200, "", int64(812), int64(640), 3, "main", int64(1))
	f.Add("", "a\"\\\n\x00\xff", int64(0), int64(5), int64(10), 0, "timeout", int64(0), int64(0), 0, "", int64(-1e18))
	f.Fuzz(func(t *testing.T, bucket, key string, size, off, length int64, status int, class string,
		latUS, ttfbUS int64, worker int, stream string, startNS int64) {
		rec := oplog.Record{Start: time.Unix(0, startNS).UTC(), Op: metrics.Op(uint(worker) % uint(metrics.NumOps)),
			Bucket: bucket, Key: key, Size: max(size, 0), Range: storage.Range{Offset: off, Length: max(length, 0)},
			Status: max(status, 0), Class: class, Latency: time.Duration(max(latUS, 0) % 1e12 * 1000),
			TTFB: time.Duration(max(ttfbUS, 0) % 1e12 * 1000), Stream: stream, Worker: max(worker, 0)}
		if rec.Start.Year() < 0 || rec.Start.Year() > 9999 {
			return
		}
		var buf bytes.Buffer
		w, _ := oplog.NewWriter(&buf, 0, oplog.Options{})
		w.Record(rec.Worker, &rec)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		r, _ := oplog.NewReader(&buf)
		var back oplog.Record
		if err := r.Next(&back); err != nil {
			t.Fatalf("%+v wrote %q, which reads as %v", rec, buf.String(), err)
		}
		want := rec
		want.Bucket, want.Key, want.Class, want.Stream = fix(t, rec.Bucket), fix(t, rec.Key), fix(t, rec.Class), fix(t, rec.Stream)
		if want.Range.Length == 0 {
			want.Range = storage.Range{}
		}
		if !equal(back, want) {
			t.Fatalf("wrote %+v\nread  %+v\nline %q", want, back, buf.String())
		}
	})
}

func fix(t *testing.T, s string) string { return viaEncodingJSON(t, s) }
