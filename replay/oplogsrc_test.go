package replay_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/compressed"
	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/oplog"
	"github.com/objbench/objbench/replay"
)

func TestOpLogThroughReplay(t *testing.T) {
	var buf bytes.Buffer
	w, _ := oplog.NewWriter(&buf, compressed.Zstd, oplog.Options{})
	w.Record(2, &oplog.Record{Start: t0, Op: metrics.OpGet, Bucket: "b", Key: "k", Size: 10, Status: 200, Latency: time.Millisecond, Stream: "s"})
	w.Record(3, &oplog.Record{Start: t0, Op: metrics.OpPut, Bucket: "b", Key: "k2", Size: 7, Class: "timeout", Intended: t0.Add(-time.Second)})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs, st, err := readAll(t, buf.String(), replay.Options{}) // zstd: detection looks inside
	if err != nil || len(recs) != 2 {
		t.Fatalf("%d records, err %v, stats %+v", len(recs), err, st)
	}
	want := []replay.Record{
		{Record: oplog.Record{Start: t0, Op: metrics.OpGet, Bucket: "b", Key: "k", Size: 10, Status: 200, Latency: time.Millisecond, Worker: 2, Stream: "s"}, BytesOut: 10},
		{Record: oplog.Record{Start: t0, Op: metrics.OpPut, Bucket: "b", Key: "k2", Size: 7, Class: "timeout", Intended: t0.Add(-time.Second), Worker: 3}, BytesIn: 7},
	}
	for i := range want {
		want[i].Pos = replay.Pos{File: "trace", Line: i + 1}
		if recs[i] != want[i] {
			t.Errorf("record %d:\n got %+v\nwant %+v", i, recs[i], want[i])
		}
	}
}
