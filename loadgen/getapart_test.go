package loadgen_test

import (
	"context"
	"testing"
	"time"

	"github.com/objbench/objbench/faultserver"
	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/storage/s3"
	"github.com/objbench/objbench/workload"
)

// With thousands of workers the S3 store sends plain GETs apart and the workers
// wait for the answers at the top of their stacks while runners send and
// read (splitget.go, runners.go): every GET of an ops-bounded step is
// counted once, with its bytes and its time to first byte, closed loop
// and open loop (at least every worker's first GET).
func TestManyWorkersGetApart(t *testing.T) {
	srv, err := faultserver.Start(context.Background(), faultserver.Config{Null: true,
		Delay: faultserver.Delay{Base: 10 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(context.Background()) })
	const workers, ops, size = 300, 3000, 4 << 10
	st, err := s3.New(context.Background(), s3.Config{Endpoint: srv.Endpoint(), Bucket: srv.Bucket(), PathStyle: true,
		Region: "us-east-1", AccessKey: "k", SecretKey: "s", MaxConns: 2048}) // the store as for thousands
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if !st.GetsApart() {
		t.Fatal("a store for 2,048 connections does not send GETs apart")
	}
	for _, rate := range []*workload.Rate{nil, {PerSec: 20000, MaxWorkers: workers}} {
		sp := spec(workload.Stream{Name: "get", Mix: []workload.OpWeight{{Op: "get", Weight: 1}}, Concurrency: []int{workers},
			Rate: rate, Bounds: workload.Bounds{Ops: ops, Duration: 30 * time.Second},
			Objects: workload.KeySpace{Prefix: "apart/", Count: workers}, Size: size})
		out, err := loadgen.Run(context.Background(), config(t, st, sp))
		if err != nil {
			t.Fatal(err)
		}
		tot := total(t, out.Steps[1], "GET")
		want := int64(ops) // open loop: the slots served (late ones are dropped, not issued)
		if rate != nil {
			want = max(tot.OK, workers)
		}
		if tot.Ops != want || tot.OK != want || tot.Bytes != want*size || tot.TTFB == nil || tot.TTFB.P50 <= 0 {
			t.Errorf("rate %v: %d GETs issued, %d ok (errors %v), %d bytes, TTFB %v; want %d ok of %d bytes with a TTFB",
				rate, tot.Ops, tot.OK, tot.Errors, tot.Bytes, tot.TTFB, want, want*size)
		}
	}
}
