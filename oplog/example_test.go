package oplog_test

import (
	"bytes"
	"fmt"
	"time"

	"github.com/objbench/objbench/internal/compressed"
	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/oplog"
)

// A worker records each op after it ends; the writer keeps nothing of the
// record, so one Record per worker is reused.
func ExampleWriter() {
	var buf bytes.Buffer // oplog.Create("ops.jsonl.zst", ...) for a file
	w, err := oplog.NewWriter(&buf, compressed.None, oplog.Options{})
	if err != nil {
		panic(err)
	}
	start := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	var rec oplog.Record
	for i := range 2 {
		rec = oplog.Record{Start: start.Add(time.Duration(i) * time.Millisecond), Op: metrics.OpGet, Bucket: "b",
			Key: fmt.Sprintf("k/%d", i), Size: 4096, Latency: 812 * time.Microsecond, TTFB: 640 * time.Microsecond, Stream: "main"}
		rec.SetError(nil)
		w.Record(7, &rec)
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	fmt.Print(buf.String())
	// Output:
	// {"time":"2026-03-01T10:00:00Z","op":"GET","bucket":"b","key":"k/0","size":4096,"latency_us":812,"ttfb_us":640,"worker":7,"stream":"main"}
	// {"time":"2026-03-01T10:00:00.001Z","op":"GET","bucket":"b","key":"k/1","size":4096,"latency_us":812,"ttfb_us":640,"worker":7,"stream":"main"}
}
