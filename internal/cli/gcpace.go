package cli

import "runtime/debug"

// manyWorkersGC is the run's largest concurrency from which objbench
// lowers the GC's headroom to manyWorkersGCPercent, unless GOGC or
// GOMEMLIMIT says otherwise. With thousands of workers nearly all waiting
// for a slow store, what they hold is most of the heap, and the GC's
// default headroom (GOGC=100: as much again as the live heap and the
// stacks it scans) most of what one more worker costs past it: 10,000
// workers peaked 35 MiB lower at 50 (bench/README.md, section 3), for a
// GC that runs twice as often. Below it the client's CPU per op is what
// is measured (1,000 workers against a store holding answers 100 ms are
// CPU-bound on two cores), and the default stays.
const (
	manyWorkersGC        = 2048
	manyWorkersGCPercent = 50
)

// paceGC sets the GC's headroom for a run of workers at most at once and
// returns what undoes it; note says why when it changes anything.
func paceGC(env Env, workers int, note func(string, ...any)) (restore func()) {
	if workers < manyWorkersGC || env.Getenv("GOGC") != "" || env.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(manyWorkersGCPercent)
	note("%d workers: GC headroom %d%% (memory over client CPU; GOGC=100 keeps the default)", workers, manyWorkersGCPercent)
	return func() { debug.SetGCPercent(old) }
}
