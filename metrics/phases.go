package metrics

import (
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
)

// opPhases accumulates where one op's requests spent their time over a
// whole step (not per second: a step's phase histograms cost the same
// memory however long it runs).
type opPhases struct {
	requests, newConns, resumed int64
	h                           [result.NumPhases]*hdr.Histogram
}

func (p *opPhases) record(ph *storage.Phases) {
	p.requests++
	if ph.NewConn {
		p.newConns++
	}
	if ph.TLSResumed {
		p.resumed++
	}
	for i, d := range [result.NumPhases]time.Duration{ph.ConnWait, ph.DNS, ph.Connect, ph.TLS, ph.Send, ph.Wait, ph.Receive} {
		if p.h[i] == nil {
			p.h[i] = result.NewHistogram()
		}
		// Zero is a value here (no connection set up, no wait): not
		// clamped to the histogram's lowest like a latency.
		_ = p.h[i].RecordValue(min(int64(d/time.Microsecond), result.HistHighest))
	}
}

func (p *opPhases) merge(src *opPhases) {
	p.requests += src.requests
	p.newConns += src.newConns
	p.resumed += src.resumed
	for i, h := range src.h {
		p.h[i] = mergeInto(p.h[i], h)
	}
}

// phaseShards is how many sets of phase histograms a series keeps, each
// behind its own lock: a fixed number, so that memory grows with neither
// workers nor CPUs (seven histograms of ~190 KB per op and set), and
// enough that workers rarely meet on a lock held for seven records.
const phaseShards = 4

// phaseShard is one set of phase histograms, per op.
type phaseShard struct {
	mu  sync.Mutex
	ops [NumOps]*opPhases // allocated on the op's first record
}

func (sh *phaseShard) record(op Op, ph *storage.Phases) {
	sh.mu.Lock()
	p := sh.ops[op]
	if p == nil {
		p = &opPhases{}
		sh.ops[op] = p
	}
	p.record(ph)
	sh.mu.Unlock()
}

// Phases is where each op's successful requests spent their time during
// the step, merged over the shards. Call it once the workers are done.
func (s *Series) Phases() []result.OpPhases {
	var sum [NumOps]*opPhases
	for i := range s.phases {
		sh := &s.phases[i]
		sh.mu.Lock()
		for op, p := range sh.ops {
			if p == nil {
				continue
			}
			if sum[op] == nil {
				sum[op] = &opPhases{}
			}
			sum[op].merge(p)
		}
		sh.mu.Unlock()
	}
	var out []result.OpPhases
	for op, p := range sum {
		if p == nil || p.requests == 0 {
			continue
		}
		o := result.OpPhases{Op: Op(op).String(), Requests: p.requests, NewConns: p.newConns, Resumed: p.resumed}
		for i, h := range p.h {
			o.Phases[i] = result.EncodeHistogram(h)
		}
		out = append(out, o)
	}
	return out
}
