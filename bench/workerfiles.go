package bench

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/objbench/objbench/result"
)

// variants is how many distinct per-second histograms a worker draws
// from: enough that the merged seconds differ, few enough to build fast.
const variants = 32

// WorkerResult is worker w of n's result file of a GET step of secs
// seconds, as objbench --worker w/n would write it: every second holds
// 1,000 ops with a latency and a time-to-first-byte histogram drawn from
// a lognormal distribution (one of 32 per worker). bench/mergegen writes
// them for bench/merge.sh; BenchmarkMerge merges them.
func WorkerResult(w, n, secs int) *result.Run {
	rng := rand.New(rand.NewPCG(uint64(w), 7))
	lat, ttfb := make([]string, variants), make([]string, variants)
	for v := range variants {
		hl, ht := result.NewHistogram(), result.NewHistogram()
		for range 1000 {
			us := math.Exp(rng.NormFloat64()*0.6 + math.Log(800))
			_ = hl.RecordValue(int64(us))
			_ = ht.RecordValue(int64(us * 0.7))
		}
		lat[v], ttfb[v] = result.EncodeHistogram(hl), result.EncodeHistogram(ht)
	}
	t0 := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	offset := time.Duration(rng.IntN(200)-100) * time.Millisecond
	start := t0.Add(time.Duration(rng.IntN(8))*time.Millisecond - offset)
	s := result.Stream{Name: "g", Concurrency: 8, StoppedBy: "duration", Seconds: make([]result.Second, secs)}
	for t := range secs {
		v := rng.IntN(variants)
		s.Seconds[t] = result.Second{T: int64(t), Ops: []result.OpSecond{{Op: "GET", Ops: 1000, Bytes: 1000 * 4096, Latency: lat[v], TTFB: ttfb[v]}}}
	}
	if err := s.SetWindow(result.Window{Start: 0, End: float64(secs)}); err != nil {
		panic(err)
	}
	return &result.Run{RunInfo: result.RunInfo{Schema: result.Version, RunID: "bench-merge", Started: start},
		Worker: &result.Worker{Rank: w, Size: n, ClockOffset: offset},
		Steps: []result.Step{{Stage: "main", Kind: result.KindMain, Start: start, Elapsed: time.Duration(secs) * time.Second,
			Streams: []result.Stream{s}}}}
}
