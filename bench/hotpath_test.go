package bench_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/cputime"
	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/payload"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage/s3"
	"github.com/objbench/objbench/workload"
)

func TestMain(m *testing.M) {
	if os.Getenv(cannedEnv) != "" {
		serveCanned()
		return
	}
	os.Exit(m.Run())
}

// startCanned runs the canned server in a child process and returns its
// endpoint; env adds to its environment (cannedDelayEnv).
func startCanned(b *testing.B, env ...string) string {
	b.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(append(os.Environ(), cannedEnv+"=1"), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatal(err)
	}
	return "http://" + addr[:len(addr)-1]
}

func cpuTime() time.Duration {
	u, s := cputime.Process()
	return u + s
}

// BenchmarkHotPath runs objbench's real op loop (loadgen workers, metrics
// recorders, the S3 store and its HTTP client) for b.N 4 KiB ops at 8
// workers against the canned server in another process, and reports the
// client's CPU per op next to allocs/op. Payload bytes are never allocated
// per op (the generator serves them from one block).
func BenchmarkHotPath(b *testing.B) {
	for _, c := range []struct {
		op, client string
	}{{"get", "direct"}, {"put", "direct"}, {"get", "std"}} {
		b.Run(c.op+"/"+c.client, func(b *testing.B) {
			ep := startCanned(b)
			ctx := context.Background()
			st, err := s3.New(ctx, s3.Config{Endpoint: ep, Bucket: "bench", PathStyle: true, Region: "us-east-1",
				AccessKey: "benchkey", SecretKey: "benchsecret", MaxConns: 8, HTTPClient: c.client})
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			block, err := payload.NewBlock(payload.DefaultBlockSize, 1, 0)
			if err != nil {
				b.Fatal(err)
			}
			stream := workload.Stream{Name: c.op, Mix: []workload.OpWeight{{Op: c.op, Weight: 1}}, Concurrency: []int{8},
				Size: objSize, Objects: workload.KeySpace{Prefix: "data/", Existing: c.op == "get"}}
			b.ReportAllocs()
			b.ResetTimer()
			stream.Bounds.Ops = int64(b.N)
			cpu0 := cpuTime()
			out, err := loadgen.Run(ctx, loadgen.Config{Store: st, Block: block, Namespace: "objbench/bench/",
				Spec: workload.Spec{Stages: []workload.Stage{{Name: "main", Kind: result.KindMain, Streams: []workload.Stream{stream}}}}})
			cpu := cpuTime() - cpu0
			b.StopTimer()
			if err != nil {
				b.Fatal(err)
			}
			var ok int64
			for _, t := range out.Steps[0].Streams[0].Totals {
				if t.Op == metrics.OpGet.String() || t.Op == metrics.OpPut.String() {
					ok += t.OK
				}
			}
			if ok != int64(b.N) {
				b.Fatalf("%d of %d ops succeeded", ok, b.N)
			}
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "client-µs/op")
			b.SetBytes(objSize)
		})
	}
}
