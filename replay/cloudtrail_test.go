package replay_test

import (
	"encoding/json"
	"github.com/objbench/objbench/oplog"
	"testing"
	"time"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/replay"
	"github.com/objbench/objbench/storage"
)

// ctEvent builds one CloudTrail event from its parts.
func ctEvent(name, bucket, key string, in, out float64, extra map[string]any) map[string]any {
	rp := map[string]any{"bucketName": bucket, "Host": bucket + ".s3.example.test"}
	if key != "" {
		rp["key"] = key
	}
	ev := map[string]any{
		"eventVersion": "1.09", "eventSource": "s3.amazonaws.com", "eventName": name,
		"eventTime": t0.Format(time.RFC3339), "awsRegion": "us-east-1", "requestParameters": rp,
		"additionalEventData": map[string]any{"bytesTransferredIn": in, "bytesTransferredOut": out},
		"readOnly":            name == "GetObject", "eventType": "AwsApiCall",
	}
	for k, v := range extra {
		if k == "prefix" || k == "Range" {
			rp[k] = v
			continue
		}
		ev[k] = v
	}
	return ev
}

func TestCloudTrailEvents(t *testing.T) {
	events := []any{
		ctEvent("GetObject", "b", "dir/k1", 0, 4096, nil),
		ctEvent("GetObject", "b", "dir/k1", 0, 100, map[string]any{"Range": "bytes=10-109"}),
		ctEvent("PutObject", "b", "k2", 2048, 0, nil),
		ctEvent("HeadObject", "b", "k3", 0, 0, map[string]any{"errorCode": "NoSuchKey"}),
		ctEvent("DeleteObject", "b", "k2", 0, 0, nil),
		ctEvent("ListObjectsV2", "b", "", 0, 0, map[string]any{"prefix": "dir/"}),
		ctEvent("CreateMultipartUpload", "b", "big", 0, 0, nil),
		ctEvent("UploadPart", "b", "big", 5<<20, 0, nil),
		ctEvent("UploadPart", "b", "big", 3<<20, 0, nil),
		ctEvent("CompleteMultipartUpload", "b", "big", 300, 0, nil),
		ctEvent("GetBucketAcl", "b", "", 0, 0, nil),
		map[string]any{"eventSource": "ec2.amazonaws.com", "eventName": "RunInstances", "eventTime": t0.Format(time.RFC3339)},
		map[string]any{"eventSource": "s3.amazonaws.com", "eventName": "GetObject", "eventTime": 12},
	}
	want := []replay.Record{
		{Record: oplog.Record{Op: metrics.OpGet, Bucket: "b", Key: "dir/k1", Size: 4096}, BytesOut: 4096},
		{Record: oplog.Record{Op: metrics.OpRangeGet, Bucket: "b", Key: "dir/k1", Range: storage.Range{Offset: 10, Length: 100}}, BytesOut: 100},
		{Record: oplog.Record{Op: metrics.OpPut, Bucket: "b", Key: "k2", Size: 2048}, BytesIn: 2048},
		{Record: oplog.Record{Op: metrics.OpStat, Bucket: "b", Key: "k3", Class: "NoSuchKey"}},
		{Record: oplog.Record{Op: metrics.OpDelete, Bucket: "b", Key: "k2"}},
		{Record: oplog.Record{Op: metrics.OpList, Bucket: "b", Key: "dir/"}},
		{Record: oplog.Record{Op: metrics.OpMultipart, Bucket: "b", Key: "big", Size: 8 << 20}, BytesIn: 300},
	}
	compact, _ := json.Marshal(map[string]any{"Records": events})
	pretty, _ := json.MarshalIndent(map[string]any{"Records": events}, "", "  ")
	for name, doc := range map[string][]byte{"one line": compact, "pretty": pretty} {
		t.Run(name, func(t *testing.T) {
			recs, st, err := readAll(t, string(doc), replay.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != len(want) {
				t.Fatalf("%d records, want %d; stats %+v", len(recs), len(want), st)
			}
			for i, w := range want {
				got := recs[i]
				w.Start, w.Resolution, w.Worker, w.Pos = t0, time.Second, -1, got.Pos // eventTime: whole seconds
				if got != w {
					t.Errorf("record %d:\n got %+v\nwant %+v", i, got, w)
				}
				if got.Pos.Event == 0 || got.Pos.Line == 0 {
					t.Errorf("record %d has no position: %v", i, got.Pos)
				}
			}
			if recs[6].Pos.Event != 10 {
				t.Errorf("the completion is event %d, want 10", recs[6].Pos.Event)
			}
			for reason, n := range map[string]int64{"operation GetBucketAcl is not replayed": 1, "not an S3 event": 1, "malformed event": 1} {
				if s := st.Skipped[reason]; s == nil || s.Count != n {
					t.Errorf("skipped %q: %+v, want %d", reason, s, n)
				}
			}
			if s := st.Skipped["malformed event"]; s != nil && s.First.Event != 13 {
				t.Errorf("malformed event first at %v, want event 13", s.First)
			}
		})
	}
}
