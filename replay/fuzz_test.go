package replay_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/replay"
)

// fuzzFormat reads data as format f: no panic, a bounded number of
// records, each with a time and a known op, and the reader's counts add up.
func fuzzFormat(t *testing.T, f replay.Format, data string) {
	r, err := replay.NewReader("fuzz", strings.NewReader(data), replay.Options{Format: f})
	if err != nil {
		return
	}
	defer r.Close()
	n := 0
	for r.Next() {
		rec := r.Record()
		if rec.Start.IsZero() || rec.Op >= metrics.NumOps {
			t.Fatalf("record %+v has no time or an unknown op", rec)
		}
		if rec.Op != metrics.OpList && rec.Key == "" {
			t.Fatalf("%s record without a key: %+v", rec.Op, rec)
		}
		if n++; n > len(data)+1 {
			t.Fatalf("%d records from %d bytes", n, len(data))
		}
	}
	var skipped int64
	for _, s := range r.Stats().Skipped {
		skipped += s.Count
	}
	if r.Stats().Records != int64(n) {
		t.Fatalf("stats say %d records, read %d", r.Stats().Records, n)
	}
}

func FuzzAccessLog(f *testing.F) {
	e := accessEntry{Time: t0, Bucket: "b", Op: "REST.GET.OBJECT", Key: "a%2Fb", Status: 206, Sent: 10, Size: 100, Total: 3, Turn: 1}
	f.Add(e.line())
	f.Add(with(e, func(e *accessEntry) { e.Op = "REST.GET.BUCKET"; e.URI = "GET /b?prefix=x HTTP/1.1" }).line() + "\n" + e.line())
	f.Add(`o b [06/Feb/2026:10:20:30 +0000] ip r id REST.PUT.OBJECT k "PUT /b/k \"x" 200 - - 5 1 1`)
	f.Fuzz(func(t *testing.T, data string) { fuzzFormat(t, replay.FormatS3Access, data) })
}

func FuzzCloudTrail(f *testing.F) {
	doc, _ := json.Marshal(map[string]any{"Records": []any{
		ctEvent("GetObject", "b", "k", 0, 10, map[string]any{"Range": "bytes=1-5"}),
		ctEvent("UploadPart", "b", "k", 10, 0, nil),
		ctEvent("CompleteMultipartUpload", "b", "k", 10, 0, nil),
	}})
	f.Add(string(doc))
	f.Add(`{"x":1,"Records":[{"eventTime":"2026-01-01T00:00:00Z","eventName":"PutObject","requestParameters":{"key":"k"}}]}{"Records":[]}`)
	f.Fuzz(func(t *testing.T, data string) { fuzzFormat(t, replay.FormatCloudTrail, data) })
}

func FuzzMinIOTrace(f *testing.F) {
	e, _ := json.Marshal(map[string]any{"type": "S3", "api": "s3.GetObject", "time": t0.Format(time.RFC3339Nano), "path": "/b/k",
		"statusCode": 206, "callStats": map[string]any{"rx": 0, "tx": 5, "duration": 1000, "timeToFirstByte": 10}})
	f.Add(string(e) + "\n" + string(e))
	f.Add(`{"api":"s3.PutObjectPart","time":"2026-01-01T00:00:00Z","path":"/b/k","request":{"headers":{"Content-Length":"9"}}}` +
		`{"api":"s3.CompleteMultipartUpload","time":"2026-01-01T00:00:00Z","path":"/b/k"}`)
	f.Fuzz(func(t *testing.T, data string) { fuzzFormat(t, replay.FormatMinIOTrace, data) })
}

func FuzzDetect(f *testing.F) {
	e := accessEntry{Time: t0, Bucket: "b", Op: "REST.HEAD.OBJECT", Key: "k", Status: 200, Sent: -1, Size: 1, Total: 1, Turn: 1}
	f.Add(e.line())
	f.Add(`{"Records":[]}`)
	f.Add(`{"api":"s3.HeadObject","time":"2026-01-01T00:00:00Z","path":"/b/k"}`)
	f.Add(`{"time":"2026-01-01T00:00:00Z","op":"GET","key":"k"}`)
	f.Fuzz(func(t *testing.T, data string) { fuzzFormat(t, replay.FormatAuto, data) })
}
