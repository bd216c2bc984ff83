package report_test

import (
	"context"
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/objbench/objbench/faultserver"
	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/payload"
	"github.com/objbench/objbench/report"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage/s3"
	"github.com/objbench/objbench/workload"
)

// windowPairs is how many pairs of windows TestCompareErrorRatesOnTheFaultServer
// runs: 2 by default (40 runs, under a minute); the figures in
// docs/reports-and-compare.md come from -compare.windows 20, and
// -compare.blocks runs the sides one after the other instead of in turn.
var (
	windowPairs = flag.Int("compare.windows", 2, "pairs of windows of runs (same, then changed) the fault server comparison runs")
	inBlocks    = flag.Bool("compare.blocks", false, "run each side's runs one after the other, not in turn")
	runFor      = flag.Duration("compare.run", time.Second, "how long each run's PUT step lasts")
)

// runsASide is each side's runs: the least the U test needs is 4.
const runsASide = 5

// faultRun is one short PUT run (8 workers, -compare.run long) against a
// fresh fault server of seed,
// whose every request is held base plus up to base/2 more, as a result file
// would hold it.
func faultRun(t *testing.T, seed uint64, base time.Duration) *result.Run {
	t.Helper()
	ctx := context.Background()
	srv, err := faultserver.Start(ctx, faultserver.Config{Seed: seed, Delay: faultserver.Delay{Base: base, Jitter: base / 2}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close(ctx)
	st, err := s3.New(ctx, s3.Config{Endpoint: srv.Endpoint(), Bucket: srv.Bucket(), PathStyle: true, Region: "us-east-1",
		AccessKey: "a", SecretKey: "b"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	blk, err := payload.NewBlock(1<<20, seed, 0)
	if err != nil {
		t.Fatal(err)
	}
	sp := workload.Spec{Name: "put", Stages: []workload.Stage{{Name: "main", Kind: workload.KindMain, Streams: []workload.Stream{{
		Name: "put", Mix: []workload.OpWeight{{Op: "put", Weight: 1}}, Concurrency: []int{8}, Size: 1024,
		Bounds: workload.Bounds{Duration: *runFor}, Objects: workload.KeySpace{Prefix: "p/"}}}}}}
	out, err := loadgen.Run(ctx, loadgen.Config{Store: st, Spec: sp, Namespace: fmt.Sprintf("objbench/r%d/", seed), Block: blk, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return &result.Run{RunInfo: result.RunInfo{Schema: result.Version, RunID: fmt.Sprint(seed), Tool: result.Tool{Name: "objbench"},
		Started: time.Now()}, Steps: out.Steps}
}

// Against a server of known behaviour, windows of 2 x runsASide runs, the
// two sides' runs taken in turn (A, A', A, A'... or A, B, A, B...), as one
// compares two builds on a shared machine: in a window of the same thing
// the two sides are a difference of nothing (a false positive when called
// significant); in the next, B's requests are held 10% longer (found when
// called significant, and in that direction). Each run has its own
// server seed. The machine's load changes under the runs as it does
// between a base and a branch: the sides' taking turns spreads it over
// both (-compare.blocks takes them one after the other, and measures what
// that costs).
func TestCompareErrorRatesOnTheFaultServer(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 40 short runs against the fault server")
	}
	const base = 5 * time.Millisecond
	metrics := []report.Metric{report.MetricOps, report.MetricP50, report.MetricP99}
	var nulls, falsePos, alts, found [3]int
	seed := uint64(1)
	for w := range 2 * *windowPairs {
		changed := w%2 == 1
		var a, b []*result.Run
		for i := range 2 * runsASide {
			second := i%2 == 1 // the side this run is of
			if *inBlocks {
				second = i >= runsASide
			}
			delay := base
			if second && changed {
				delay = base * 11 / 10
			}
			r := faultRun(t, seed, delay)
			seed++
			if second {
				b = append(b, r)
			} else {
				a = append(a, r)
			}
		}
		c := report.CompareSides(a, b)
		for _, row := range c.Rows {
			for k, m := range metrics {
				ch := row.Changes[0][m]
				if !changed {
					nulls[k]++
					if ch.Sig == report.Significant {
						falsePos[k]++
					}
					continue
				}
				alts[k]++
				slower := ch.Pct > 0 // latency up
				if m == report.MetricOps {
					slower = ch.Pct < 0
				}
				if ch.Sig == report.Significant && slower {
					found[k]++
				}
			}
		}
	}
	var fp, nn int
	for k, m := range metrics {
		t.Logf("%s: %d of %d comparisons of the same thing called significant (%.1f%%); %d of %d 10%% slowdowns found (%.1f%%)",
			m, falsePos[k], nulls[k], 100*float64(falsePos[k])/float64(nulls[k]), found[k], alts[k], 100*float64(found[k])/float64(alts[k]))
		fp, nn = fp+falsePos[k], nn+nulls[k]
	}
	// Loose bounds for the default few windows (the figures come from 20
	// pairs): tested within runs, 7 of 15 pairs of identical runs were
	// called different. Of the three, the median is the metric a loaded
	// machine's stalls (which move a run's throughput and p99) leave alone.
	if float64(fp) > 0.34*float64(nn) {
		t.Errorf("%d of %d comparisons of the same thing called significant", fp, nn)
	}
	if 2*found[1] < alts[1] {
		t.Errorf("only %d of %d 10%% slowdowns of p50 found", found[1], alts[1])
	}
}
