// Command mergegen writes the result files of a distributed run's workers,
// as objbench --worker r/N would after a long GET step, for measuring
// `objbench merge` (bench/merge.sh): N files of S per-second records, each
// second with a latency and a time-to-first-byte histogram of 1,000 ops
// drawn from a lognormal distribution.
//
// Usage: mergegen [-schema 4] DIR WORKERS SECONDS
//
// -schema 4 writes the same records as result version 4 wrote them (each
// histogram deflated, base64, in a JSON record per second), for builds
// of objbench from before version 5.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"

	"golang.org/x/sync/errgroup"

	"github.com/objbench/objbench/atomicfile"
	"github.com/objbench/objbench/bench"
	"github.com/objbench/objbench/internal/resultpack"
	"github.com/objbench/objbench/result"
)

func main() {
	schema := flag.Int("schema", result.Version, "result version to write: 4 or "+strconv.Itoa(result.Version))
	flag.Parse()
	args := flag.Args()
	if len(args) != 3 || (*schema != 4 && *schema != result.Version) {
		fmt.Fprintln(os.Stderr, "usage: mergegen [-schema 4] DIR WORKERS SECONDS")
		os.Exit(2)
	}
	workers, err1 := strconv.Atoi(args[1])
	secs, err2 := strconv.Atoi(args[2])
	if err1 != nil || err2 != nil || workers < 1 || secs < 1 {
		fmt.Fprintln(os.Stderr, "mergegen: WORKERS and SECONDS are positive whole numbers")
		os.Exit(2)
	}
	if err := os.MkdirAll(args[0], 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "mergegen:", err)
		os.Exit(1)
	}
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for w := range workers {
		g.Go(func() error {
			path := filepath.Join(args[0], fmt.Sprintf("worker-%d.json", w))
			if *schema == 4 {
				r := bench.WorkerResult(w, workers, secs, result.EncodeHistogram)
				r.Schema = 4
				return atomicfile.Write(path, 0o644, func(f io.Writer) error { return writeV4(f, r) })
			}
			return result.Write(path, bench.WorkerResult(w, workers, secs, resultpack.PackHistogram))
		})
	}
	if err := g.Wait(); err != nil {
		fmt.Fprintln(os.Stderr, "mergegen:", err)
		os.Exit(1)
	}
}

// writeV4 is result.Encode as version 4 had it: the Run's JSON as its
// fields say, seconds as records (Packed is empty, so left out).
func writeV4(w io.Writer, r *result.Run) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(r)
}
