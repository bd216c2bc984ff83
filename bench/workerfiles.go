package bench

import (
	"math"
	"math/rand/v2"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/objbench/objbench/result"
)

// WorkerResult is worker w of n's result of a GET step of secs seconds,
// as objbench --worker w/n would write it: every second holds 1,000 ops
// with a latency and a time-to-first-byte histogram, each second's drawn
// afresh from a lognormal distribution (so no two seconds' histograms are
// alike, as in a real run, and compression finds no repeats to exploit).
// encode gives the histograms' form: resultpack.PackHistogram for the current
// version's files, result.EncodeHistogram (V2 text) for version 4's.
// bench/mergegen writes them for bench/merge.sh; BenchmarkMerge merges
// them.
func WorkerResult(w, n, secs int, encode func(*hdr.Histogram) string) *result.Run {
	rng := rand.New(rand.NewPCG(uint64(w), 7))
	t0 := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	offset := time.Duration(rng.IntN(200)-100) * time.Millisecond
	start := t0.Add(time.Duration(rng.IntN(8))*time.Millisecond - offset)
	s := result.Stream{Name: "g", Concurrency: 8, StoppedBy: "duration", Seconds: make([]result.Second, secs)}
	hl, ht := result.NewHistogram(), result.NewHistogram()
	for t := range secs {
		hl.Reset()
		ht.Reset()
		for range 1000 {
			us := math.Exp(rng.NormFloat64()*0.6 + math.Log(800))
			_ = hl.RecordValue(int64(us))
			_ = ht.RecordValue(int64(us * 0.7))
		}
		s.Seconds[t] = result.Second{T: int64(t), Ops: []result.OpSecond{{Op: "GET", Ops: 1000, Bytes: 1000 * 4096,
			Latency: encode(hl), TTFB: encode(ht)}}}
	}
	if err := s.SetWindow(result.Window{Start: 0, End: float64(secs)}); err != nil {
		panic(err)
	}
	return &result.Run{RunInfo: result.RunInfo{Schema: result.Version, RunID: "bench-merge", Started: start},
		Worker: &result.Worker{Rank: w, Size: n, ClockOffset: offset},
		Steps: []result.Step{{Stage: "main", Kind: result.KindMain, Start: start, Elapsed: time.Duration(secs) * time.Second,
			Streams: []result.Stream{s}}}}
}
