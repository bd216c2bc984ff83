// Command mergegen writes the result files of a distributed run's workers,
// as objbench --worker r/N would after a long GET step, for measuring
// `objbench merge` (bench/merge.sh): N files of S per-second records, each
// second with a latency and a time-to-first-byte histogram of about 1,000
// ops drawn from a lognormal distribution.
//
// Usage: mergegen DIR WORKERS SECONDS
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/objbench/objbench/bench"
	"github.com/objbench/objbench/result"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: mergegen DIR WORKERS SECONDS")
		os.Exit(2)
	}
	workers, err1 := strconv.Atoi(os.Args[2])
	secs, err2 := strconv.Atoi(os.Args[3])
	if err1 != nil || err2 != nil || workers < 1 || secs < 1 {
		fmt.Fprintln(os.Stderr, "mergegen: WORKERS and SECONDS are positive whole numbers")
		os.Exit(2)
	}
	for w := range workers {
		r := bench.WorkerResult(w, workers, secs)
		if err := result.Write(filepath.Join(os.Args[1], fmt.Sprintf("worker-%d.json", w)), r); err != nil {
			fmt.Fprintln(os.Stderr, "mergegen:", err)
			os.Exit(1)
		}
	}
}
