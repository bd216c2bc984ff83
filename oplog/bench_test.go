package oplog_test

import (
	"bytes"
	"io"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/objbench/objbench/internal/compressed"
	"github.com/objbench/objbench/oplog"
)

// BenchmarkRecord is what a worker pays per op to log it, with every CPU
// running workers at once: encoding, the shard lock, the hand-over, and
// (for zstd) the compression on the writing goroutine.
//
//	go test ./oplog/ -run '^$' -bench Record -benchtime 1000000x -benchmem
func BenchmarkRecord(b *testing.B) {
	for _, k := range []compressed.Kind{compressed.None, compressed.Zstd, compressed.Gzip} {
		b.Run(k.String(), func(b *testing.B) {
			name := map[compressed.Kind]string{compressed.None: "ops.jsonl", compressed.Zstd: "ops.zst", compressed.Gzip: "ops.gz"}[k]
			w, err := oplog.Create(filepath.Join(b.TempDir(), name), oplog.Options{})
			if err != nil {
				b.Fatal(err)
			}
			var ids atomic.Int64
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				id := int(ids.Add(1))
				rec := sample(id, 12345)
				for pb.Next() {
					rec.Size++
					w.Record(id, &rec)
				}
			})
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkRead is how fast an op log is read back, in lines per second.
//
//	go test ./oplog/ -run '^$' -bench Read -benchtime 5x
func BenchmarkRead(b *testing.B) {
	const lines = 200000
	var buf bytes.Buffer
	w, _ := oplog.NewWriter(&buf, compressed.None, oplog.Options{})
	for i := range lines {
		rec := sample(i%64, i)
		w.Record(i%64, &rec)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		r, _ := oplog.NewReader(bytes.NewReader(data))
		var rec oplog.Record
		n := 0
		for {
			err := r.Next(&rec)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != lines {
			b.Fatalf("read %d lines, wrote %d", n, lines)
		}
	}
	b.ReportMetric(float64(lines*b.N)/b.Elapsed().Seconds(), "lines/s")
}
