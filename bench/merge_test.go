package bench_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"testing"

	"github.com/objbench/objbench/bench"
	"github.com/objbench/objbench/internal/resultpack"
	"github.com/objbench/objbench/merge"
	"github.com/objbench/objbench/result"
)

// BenchmarkMerge is what `objbench merge` does with the result files of a
// distributed run (merge.Sources): read each worker's file, merge
// them on the store's clock (histograms summed per second), encode the
// merged file. The
// figure to watch is the time and allocation per worker-second;
// bench/merge.sh measures 100 workers of an hour end to end.
func BenchmarkMerge(b *testing.B) {
	const workers, secs = 10, 300
	files := make([][]byte, workers)
	for w := range workers {
		var buf bytes.Buffer
		if err := result.Encode(&buf, bench.WorkerResult(w, workers, secs, resultpack.PackHistogram)); err != nil {
			b.Fatal(err)
		}
		files[w] = buf.Bytes()
	}
	srcs := make([]merge.Source, workers)
	for w, f := range files {
		srcs[w] = merge.Source{Name: fmt.Sprintf("worker-%d.json", w), Read: func() ([]byte, error) { return f, nil }}
	}
	b.ResetTimer()
	for range b.N {
		m, err := merge.Sources(context.Background(), srcs, runtime.GOMAXPROCS(0))
		if err != nil {
			b.Fatal(err)
		}
		if err := result.Encode(io.Discard, m); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*workers*secs), "µs/worker-second")
}
