package replay_test

import (
	"bytes"
	"encoding/json"
	"github.com/objbench/objbench/oplog"
	"testing"
	"time"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/replay"
	"github.com/objbench/objbench/storage"
)

func TestMinIOTraceShortAndVerbose(t *testing.T) {
	short := func(api, path string, status int, rx, tx int64, query string) map[string]any {
		return map[string]any{"status": "success", "host": "node1:9000", "time": t0.Format(time.RFC3339Nano), "client": "10.0.0.9",
			"callStats": map[string]any{"rx": rx, "tx": tx, "duration": 2500000, "timeToFirstByte": 400000},
			"duration":  2500000, "timeToFirstByte": 400000, "api": api, "path": path, "query": query, "statusCode": status,
			"statusMsg": "", "type": "S3", "error": "", "extra": nil}
	}
	verbose := map[string]any{"type": "S3", "host": "node1:9000", "api": "s3.GetObject", "time": t0.Format(time.RFC3339Nano),
		"duration": 3000000, "path": "/b/dir/v",
		"request":   map[string]any{"time": t0, "proto": "HTTP/1.1", "method": "GET", "path": "/b/dir/v", "headers": map[string]string{"Range": "bytes=0-99"}},
		"response":  map[string]any{"time": t0, "statusCode": 206},
		"callStats": map[string]any{"rx": 0, "tx": 100, "duration": 3000000, "timeToFirstByte": 500000}}
	entries := []any{
		short("s3.GetObject", "/b/dir/k", 200, 0, 4096, ""),
		short("s3.PutObject", "/b/k2", 200, 1000, 0, ""),
		short("s3.HeadObject", "/b/k3", 404, 0, 0, ""),
		short("s3.GetObject", "/b/k4", 404, 0, 312, ""),
		short("s3.ListObjectsV2", "/b", 200, 0, 500, "list-type=2&prefix=dir%2F"),
		short("s3.NewMultipartUpload", "/b/big", 200, 0, 300, "uploads="),
		short("s3.PutObjectPart", "/b/big", 200, 6<<20, 0, "partNumber=1&uploadId=u"),
		short("s3.CompleteMultipartUpload", "/b/big", 200, 400, 300, "uploadId=u"),
		short("s3.GetBucketLocation", "/b", 200, 0, 100, ""),
		map[string]any{"type": "Internal", "api": "grid.Ping", "time": t0.Format(time.RFC3339Nano), "path": "/x"},
		verbose,
	}
	lat, ttfb := 2500*time.Microsecond, 400*time.Microsecond
	want := []replay.Record{
		{Record: oplog.Record{Op: metrics.OpGet, Bucket: "b", Key: "dir/k", Status: 200, Size: 4096, Latency: lat, TTFB: ttfb}, BytesOut: 4096},
		{Record: oplog.Record{Op: metrics.OpPut, Bucket: "b", Key: "k2", Status: 200, Size: 1000, Latency: lat, TTFB: ttfb}, BytesIn: 1000},
		{Record: oplog.Record{Op: metrics.OpStat, Bucket: "b", Key: "k3", Status: 404, Latency: lat, TTFB: ttfb}},
		// the 404's body is an error document: no size of an object
		{Record: oplog.Record{Op: metrics.OpGet, Bucket: "b", Key: "k4", Status: 404, Latency: lat, TTFB: ttfb}, BytesOut: 312},
		{Record: oplog.Record{Op: metrics.OpList, Bucket: "b", Key: "dir/", Status: 200, Latency: lat, TTFB: ttfb}, BytesOut: 500},
		{Record: oplog.Record{Op: metrics.OpMultipart, Bucket: "b", Key: "big", Status: 200, Size: 6 << 20, Latency: lat, TTFB: ttfb}, BytesIn: 400, BytesOut: 300},
		{Record: oplog.Record{Op: metrics.OpRangeGet, Bucket: "b", Key: "dir/v", Status: 206, Range: storage.Range{Offset: 0, Length: 100}, Latency: 3 * time.Millisecond, TTFB: 500 * time.Microsecond}, BytesOut: 100},
	}
	var lines, indented bytes.Buffer
	for _, e := range entries {
		b, _ := json.Marshal(e)
		lines.Write(append(b, '\n'))
		b, _ = json.MarshalIndent(e, "", " ")
		indented.Write(append(b, '\n'))
	}
	for name, text := range map[string]string{"lines": lines.String(), "indented": indented.String()} {
		t.Run(name, func(t *testing.T) {
			recs, st, err := readAll(t, text, replay.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != len(want) {
				t.Fatalf("%d records, want %d; stats %+v", len(recs), len(want), st)
			}
			for i, w := range want {
				got := recs[i]
				w.Start, w.Worker, w.Pos = t0, -1, got.Pos
				if got != w {
					t.Errorf("record %d:\n got %+v\nwant %+v", i, got, w)
				}
			}
			if name == "lines" && recs[1].Pos.Line != 2 {
				t.Errorf("second entry at line %d, want 2", recs[1].Pos.Line)
			}
			if s := st.Skipped["not an S3 call"]; s == nil || s.Count != 1 {
				t.Errorf("non-S3 calls skipped: %+v", s)
			}
		})
	}
}
