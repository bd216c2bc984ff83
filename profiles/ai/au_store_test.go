package ai_test

import (
	"context"
	"testing"
	"time"

	"github.com/objbench/objbench/faultserver"
	"github.com/objbench/objbench/profiles/ai"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/run"
	"github.com/objbench/objbench/storage/s3"
)

// AU against a store whose every request takes a known time D, worked
// by hand. One sample a batch, one accelerator, computation C a batch:
//
//   - one read thread asking one batch ahead: a batch is asked for when
//     the last one is handed over, and comes D later; the accelerator
//     computes C < D meanwhile, so each step takes D: AU = C/D.
//   - two read threads, two batches ahead: two reads overlap, a batch
//     comes every D/2: AU = C/(D/2).
//   - a store faster than the computation: the next batch is there when
//     the computation ends: AU = 1.
//
// The computation is a timer, which a loaded machine (or the race
// detector) overshoots by a few milliseconds, and each read takes a
// little more than D (the request's own time, and more when the machine
// is busy); DLIO counts the time slept as computation. So the expected
// AU takes what was measured: C', the computation a step, and D', the
// reads' mean latency as the client saw it, in place of C and D:
// min(1, threads x C'/D'). The steps that count (n = 12) began with a
// batch asked for before their window, up to a period's head start: the
// bound above is the formula times n/(n-1), and 0.03 (a faster store
// than that would be a bug); below, 0.20 (hand-offs between the read
// threads and the accelerator, slow on a machine whose cores other
// tests hold).
func TestAUAgainstAStoreOfKnownLatency(t *testing.T) {
	cases := []struct {
		name            string
		delay, compute  time.Duration
		threads, prefch int
		formula         float64 // threads x C/D, at most 1
	}{
		{"store slower than the computation", 100 * time.Millisecond, 40 * time.Millisecond, 1, 1, 0.4},
		{"two read threads", 100 * time.Millisecond, 40 * time.Millisecond, 2, 2, 0.8},
		{"store faster than the computation", 20 * time.Millisecond, 100 * time.Millisecond, 1, 2, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			srv, err := faultserver.Start(ctx, faultserver.Config{Delay: faultserver.Delay{Base: c.delay}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = srv.Close(context.WithoutCancel(ctx)) })
			st, err := s3.New(ctx, s3.Config{Endpoint: srv.Endpoint(), Bucket: srv.Bucket(), AccessKey: "a", SecretKey: "b",
				Region: "us-east-1", PathStyle: true, MaxConns: 32})
			if err != nil {
				t.Fatal(err)
			}
			w := ai.Workload{Model: "known", Accelerator: "x", Files: 13, SamplesPerFile: 1, RecordBytes: 16 << 10, BatchSize: 1,
				ReadThreads: c.threads, Prefetch: c.prefch, Compute: c.compute, AUTarget: 0.9, Epochs: 1}
			p, err := ai.Train(ai.TrainConfig{Workload: w, Accelerators: 1, Generate: true})
			if err != nil {
				t.Fatal(err)
			}
			res, err := run.Run(ctx, p.Spec, run.NewTarget(st, result.Target{Kind: "s3"}), run.Options{Scripts: p.Scripts, NoWatch: true})
			if err != nil {
				t.Fatal(err)
			}
			tr := res.Steps[len(res.Steps)-1].Training[0]
			l := tr.Loaders[0]
			if l.Steps != 13 || tr.Errors() != 0 {
				t.Fatalf("%d steps, %d errors", l.Steps, tr.Errors())
			}
			perStep := l.Compute / time.Duration(l.Steps-1)
			if perStep < c.compute {
				t.Errorf("computation %v a step, less than the %v asked", perStep, c.compute)
			}
			read := time.Duration(res.Steps[len(res.Steps)-1].Streams[0].Totals[0].Latency.Avg * float64(time.Microsecond))
			if read < c.delay {
				t.Fatalf("reads took %v on average: the store holds each %v", read, c.delay)
			}
			want := min(1, float64(c.threads)*float64(perStep)/float64(read))
			n := float64(l.Steps - 1)
			if au := tr.AU(); au > min(1, want*n/(n-1))+0.03 || au < want-0.20 {
				t.Errorf("AU %.3f (computation %v over %v), want %.3f (C' = %v, D' = %v; by the formula with C and D: %.2f)",
					au, l.Compute, l.Wall, want, perStep, read, c.formula)
			}
			if want < 0.9 && tr.Met() {
				t.Errorf("AU %.3f met the 90%% target", tr.AU())
			}
		})
	}
}
