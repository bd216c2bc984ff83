package replay_test

import (
	"errors"
	"github.com/objbench/objbench/oplog"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/replay"
	"github.com/objbench/objbench/storage"
)

var t0 = time.Date(2026, 2, 6, 10, 20, 30, 0, time.UTC)

// readAll reads every record of a trace given as text.
func readAll(t *testing.T, text string, o replay.Options) ([]replay.Record, replay.Stats, error) {
	t.Helper()
	r, err := replay.NewReader("trace", strings.NewReader(text), o)
	if err != nil {
		return nil, replay.Stats{}, err
	}
	defer r.Close()
	var out []replay.Record
	for r.Next() {
		out = append(out, *r.Record())
	}
	return out, r.Stats(), r.Err()
}

func TestAccessLogOperations(t *testing.T) {
	get := accessEntry{Time: t0, Bucket: "photos", Op: "REST.GET.OBJECT", Key: "2026/a%20b.jpg", Status: 200, Sent: 4096, Size: 4096, Total: 12, Turn: 3}
	tests := []struct {
		name string
		e    accessEntry
		want replay.Record
	}{
		{"get", get, replay.Record{Record: oplog.Record{Op: metrics.OpGet, Bucket: "photos", Key: "2026/a b.jpg", Status: 200, Size: 4096, Latency: 12 * time.Millisecond, TTFB: 3 * time.Millisecond}, BytesOut: 4096}},
		{"ranged get", with(get, func(e *accessEntry) { e.Status, e.Sent = 206, 100 }),
			replay.Record{Record: oplog.Record{Op: metrics.OpRangeGet, Bucket: "photos", Key: "2026/a b.jpg", Status: 206, Size: 4096, Range: storage.Range{Offset: -1, Length: 100}, Latency: 12 * time.Millisecond, TTFB: 3 * time.Millisecond}, BytesOut: 100}},
		{"put", accessEntry{Time: t0, Bucket: "b", Op: "REST.PUT.OBJECT", Key: "k", Status: 200, Sent: -1, Size: 1 << 20, Total: 40, Turn: 5},
			replay.Record{Record: oplog.Record{Op: metrics.OpPut, Bucket: "b", Key: "k", Status: 200, Size: 1 << 20, Latency: 40 * time.Millisecond, TTFB: 5 * time.Millisecond}, BytesIn: 1 << 20}},
		{"head, not found", accessEntry{Time: t0, Bucket: "b", Op: "REST.HEAD.OBJECT", Key: "gone", Status: 404, Err: "NoSuchKey", Sent: -1, Size: -1, Total: 1, Turn: 1},
			replay.Record{Record: oplog.Record{Op: metrics.OpStat, Bucket: "b", Key: "gone", Status: 404, Class: "NoSuchKey", Latency: time.Millisecond, TTFB: time.Millisecond}}},
		{"delete", accessEntry{Time: t0, Bucket: "b", Op: "REST.DELETE.OBJECT", Key: "k", Status: 204, Sent: -1, Size: -1, Total: -1, Turn: -1},
			replay.Record{Record: oplog.Record{Op: metrics.OpDelete, Bucket: "b", Key: "k", Status: 204}}},
		{"batch delete", accessEntry{Time: t0, Bucket: "b", Op: "BATCH.DELETE.OBJECT", Key: "k2", Status: 204, Sent: -1, Size: -1, Total: -1, Turn: -1},
			replay.Record{Record: oplog.Record{Op: metrics.OpDelete, Bucket: "b", Key: "k2", Status: 204}}},
		{"list", accessEntry{Time: t0, Bucket: "b", Op: "REST.GET.BUCKET", URI: "GET /b?list-type=2&prefix=logs%2F2026&max-keys=1000 HTTP/1.1",
			Status: 200, Sent: 900, Size: -1, Total: 8, Turn: 7},
			replay.Record{Record: oplog.Record{Op: metrics.OpList, Bucket: "b", Key: "logs/2026", Status: 200, Latency: 8 * time.Millisecond, TTFB: 7 * time.Millisecond}, BytesOut: 900}},
		{"multipart complete", accessEntry{Time: t0, Bucket: "b", Op: "REST.POST.UPLOAD", Key: "big", Status: 200, Sent: 300, Size: 700 << 20, Total: 110, Turn: 70},
			replay.Record{Record: oplog.Record{Op: metrics.OpMultipart, Bucket: "b", Key: "big", Status: 200, Size: 700 << 20, Latency: 110 * time.Millisecond, TTFB: 70 * time.Millisecond}, BytesOut: 300}},
		{"time zone", with(get, func(e *accessEntry) { e.Zone = "-0130" }), replay.Record{Record: oplog.Record{Op: metrics.OpGet, Bucket: "photos", Key: "2026/a b.jpg", Status: 200, Size: 4096, Latency: 12 * time.Millisecond, TTFB: 3 * time.Millisecond}, BytesOut: 4096}},
		{"user agent with quotes and spaces", with(get, func(e *accessEntry) { e.UserAgent = `tool \"x y\" z`; e.Referer = "http://a b/" }),
			replay.Record{Record: oplog.Record{Op: metrics.OpGet, Bucket: "photos", Key: "2026/a b.jpg", Status: 200, Size: 4096, Latency: 12 * time.Millisecond, TTFB: 3 * time.Millisecond}, BytesOut: 4096}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, st, err := readAll(t, tt.e.line()+"\n", replay.Options{})
			if err != nil || len(recs) != 1 {
				t.Fatalf("%d records, err %v, stats %+v", len(recs), err, st)
			}
			got := recs[0]
			want := tt.want
			// access logs give whole seconds
			want.Start, want.Resolution, want.Worker, want.Pos = t0, time.Second, -1, replay.Pos{File: "trace", Line: 1}
			if got != want {
				t.Errorf("\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

func with(e accessEntry, f func(*accessEntry)) accessEntry { f(&e); return e }

func TestAccessLogCountsWhatItCannotUse(t *testing.T) {
	ok := accessEntry{Time: t0, Bucket: "b", Op: "REST.GET.OBJECT", Key: "k", Status: 200, Sent: 1, Size: 1, Total: 1, Turn: 1}
	lines := []string{
		ok.line(),
		with(ok, func(e *accessEntry) { e.Op = "REST.GET.ACL" }).line(),
		with(ok, func(e *accessEntry) { e.Op = "REST.POST.UPLOADS" }).line(),
		"",
		with(ok, func(e *accessEntry) { e.Op = "REST.PUT.PART" }).line(),
		with(ok, func(e *accessEntry) { e.Op = "REST.PUT.PART" }).line(),
		with(ok, func(e *accessEntry) { e.Key = "" }).line(),
		strings.Replace(ok.line(), "06/Feb/2026", "06/Fbr/2026", 1),
		"owner b [06/Feb/2026:10:20:30 +0000] too few fields",
		with(ok, func(e *accessEntry) { e.Op = "REST.GET.ACL" }).line(),
		ok.line(),
	}
	recs, st, err := readAll(t, strings.Join(lines, "\n"), replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || st.Records != 2 {
		t.Fatalf("%d records (stats %d), want 2", len(recs), st.Records)
	}
	want := map[string]replay.Skip{
		"operation REST.GET.ACL is not replayed": {Count: 2, First: replay.Pos{File: "trace", Line: 2}},
		"no key":                                 {Count: 1, First: replay.Pos{File: "trace", Line: 7}, Detail: "REST.GET.OBJECT"},
		"malformed line":                         {Count: 2, First: replay.Pos{File: "trace", Line: 8}, Detail: "time [06/Fbr/2026:10:20:30 +0000]"},
	}
	if len(st.Skipped) != len(want) {
		t.Errorf("skipped %v, want %v", st.Skipped, want)
	}
	for reason, w := range want {
		if got := st.Skipped[reason]; got == nil || *got != w {
			t.Errorf("skipped %q: %+v, want %+v", reason, got, w)
		}
	}
	if m := st.Merged["multipart part uploaded (replayed with its upload)"]; m == nil || m.Count != 2 {
		t.Errorf("merged parts %+v, want 2", m)
	}
	if m := st.Merged["multipart upload created (replayed at its completion)"]; m == nil || m.Count != 1 || m.First.Line != 3 {
		t.Errorf("merged creates %+v, want 1 at line 3", m)
	}

	_, _, err = readAll(t, strings.Join(lines, "\n"), replay.Options{Strict: true})
	var se *replay.SkipError
	if !errors.As(err, &se) || se.Pos.Line != 2 || !strings.Contains(err.Error(), "trace:2: operation REST.GET.ACL is not replayed") {
		t.Errorf("strict: %v, want the ACL line (trace:2) as a SkipError", err)
	}
}
