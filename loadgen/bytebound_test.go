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

// startFault starts a fault server (on addr, "" for a free port) and a
// store on it.
func startFault(t *testing.T, cfg faultserver.Config) (*faultserver.Server, *s3.Store) {
	t.Helper()
	cfg.AccessKey, cfg.SecretKey = "AKUNAVAIL", "unavailable-secret"
	srv, err := faultserver.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(context.Background()) })
	st, err := s3.New(context.Background(), s3.Config{Endpoint: srv.Endpoint(), Bucket: srv.Bucket(), PathStyle: true,
		Region: "us-east-1", AccessKey: cfg.AccessKey, SecretKey: cfg.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return srv, st
}

// A byte bound is claimed before ops are issued, as an op bound is: eight
// workers writing 1 MiB objects with a 4.5 MiB bound write five objects,
// not eight (every worker's first op in flight at once).
func TestByteBoundStopsWithinOneObject(t *testing.T) {
	_, st := startFault(t, faultserver.Config{Delay: faultserver.Delay{Base: 30 * time.Millisecond}})
	const size, bound = 1 << 20, 9 << 19 // 1 MiB objects, 4.5 MiB
	for _, op := range []string{"put", "get"} {
		t.Run(op, func(t *testing.T) {
			sp := spec(workload.Stream{Name: op, Mix: []workload.OpWeight{{Op: op, Weight: 1}}, Concurrency: []int{8},
				Bounds: workload.Bounds{Bytes: bound}, Objects: workload.KeySpace{Prefix: op + "/", Count: 8}, Size: size})
			out, err := loadgen.Run(context.Background(), config(t, st, sp))
			if err != nil {
				t.Fatal(err)
			}
			main := out.Steps[1]
			tot := total(t, main, map[string]string{"put": "PUT", "get": "GET"}[op])
			if tot.Bytes < bound || tot.Bytes > bound+size || main.Streams[0].StoppedBy != "bytes" {
				t.Errorf("%s moved %d bytes in %d ops (stopped by %s); want %d to %d", op, tot.Bytes, tot.Ops,
					main.Streams[0].StoppedBy, bound, bound+size)
			}
		})
	}
}
