package loadgen

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// runners run the deep parts of the workers' GETs (signing and writing a
// request, parsing its answer) on a few goroutines of their own, so a
// worker's goroutine goes no deeper than its loop and the wait for the
// answer: its stack stays at 4 KiB instead of the 8 KiB the request path
// needs (a goroutine's stack grows to its deepest call and shrinks only
// at a GC that finds it mostly unused, and the worker goes deep again at
// its next op). With 10,000 workers nearly all waiting, that is 40 MB.
//
// Their number is fixed: on a busy machine thousands of workers are
// ready to run at once, and a runner per ready worker (a pool grown on
// demand) had thousands of deep stacks again. A worker waits for a runner
// at the top of its stack. What runs on them must not wait for another
// worker's call: a GET sent apart never waits for a connection
// (GetsApart is false under a connection limit) and its body is small
// (getsApart), so a runner waits at most for a dial or a full socket
// buffer, which other requests do not hold.
type runners struct {
	start   sync.Once
	started atomic.Bool
	jobs    chan *worker // closed when the stream ends
}

// runnersPerCore: a runner parked in a GC assist, or descheduled,
// should not leave the cores idle.
const runnersPerCore = 8

func newRunners() *runners { return &runners{jobs: make(chan *worker, 1024)} }

// call runs f(w) on a runner and returns when it has returned; on the
// caller's goroutine if there are no runners.
func (r *runners) call(w *worker, f func(*worker)) {
	if r == nil || w.jobDone == nil {
		f(w)
		return
	}
	if !r.started.Load() { // a closure for Once.Do here was an allocation per call
		r.startServing()
	}
	w.job = f
	r.jobs <- w
	<-w.jobDone
}

// startServing starts the runners, once.
func (r *runners) startServing() {
	r.start.Do(func() {
		for range runnersPerCore * runtime.GOMAXPROCS(0) {
			go r.serve()
		}
		r.started.Store(true)
	})
}

// serve runs the jobs handed to it until the stream ends.
func (r *runners) serve() {
	for w := range r.jobs {
		w.job(w)
		w.jobDone <- struct{}{}
	}
}

// close ends the runners once every worker has stopped.
func (r *runners) close() { close(r.jobs) }
