package s3_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/cputime"
	"github.com/objbench/objbench/internal/testenv"
	pl "github.com/objbench/objbench/payload"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// BenchmarkPutFromFiles is the measurement behind sendfileMin: PUTs of
// payload bodies by 4 workers to MinIO, each size written with write(2)
// and sent with sendfile(2) from the block's memfd, one after the other.
// client-CPU-s/GiB is this process's CPU (the client's; MinIO runs apart)
// per GiB sent. Run a few counts and compare within one:
//
//	go test -run x -bench PutFromFiles -benchtime 3s -count 2 ./storage/s3
func BenchmarkPutFromFiles(b *testing.B) {
	m := testenv.StartMinIO(b)
	block, err := pl.NewBlock(pl.DefaultBlockSize, 1, 0)
	if err != nil {
		b.Fatal(err)
	}
	const workers = 4
	for _, size := range []int64{64 << 10, 1 << 20, 8 << 20, 16 << 20, 32 << 20, 64 << 20} {
		for _, mode := range []string{"write", "sendfile"} {
			b.Run(fmt.Sprintf("%dKiB/%s", size>>10, mode), func(b *testing.B) {
				s, err := s3.New(context.Background(), s3.Config{Endpoint: m.Endpoint, Bucket: "files", AccessKey: m.AccessKey, SecretKey: m.SecretKey,
					MaxConns: workers, PathStyle: true, Region: "us-east-1"})
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { _ = s.Close() })
				s3.SetSendfileMin(s, map[string]int64{"write": 1 << 62, "sendfile": 1}[mode])
				ctx := context.Background()
				if err := s.CreateBucket(ctx); err != nil {
					b.Fatal(err)
				}
				var next atomic.Int64
				var wg sync.WaitGroup
				var failed atomic.Value
				b.SetBytes(size)
				cpu0 := rusageCPU()
				b.ResetTimer()
				for w := range workers {
					wg.Go(func() {
						r := pl.NewReader(block)
						for i := next.Add(1); i <= int64(b.N); i = next.Add(1) {
							r.Reset(uint64(i), size)
							if _, err := s.Put(ctx, fmt.Sprintf("w%d", w), r, size, storage.PutOptions{}); err != nil {
								failed.Store(err)
								return
							}
						}
					})
				}
				wg.Wait()
				b.StopTimer()
				if err, _ := failed.Load().(error); err != nil {
					b.Fatal(err)
				}
				gib := float64(size) * float64(b.N) / (1 << 30)
				b.ReportMetric((rusageCPU()-cpu0).Seconds()/gib, "client-CPU-s/GiB")
			})
		}
	}
}

func rusageCPU() time.Duration {
	u, s := cputime.Process()
	return u + s
}
