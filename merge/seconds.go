package merge

import (
	"fmt"
	"slices"

	"github.com/objbench/objbench/internal/resultpack"
	"github.com/objbench/objbench/result"
)

// mergedOp is one op of one merged second being built.
type mergedOp struct {
	result.OpSecond
	ticks    result.TickCounts
	hasTicks bool
	hist     [3]resultpack.Paged // latency, TTFB, response
	has      [3]bool
}

// secondMerger sums op-seconds of several parts into merged seconds. It
// holds the merged seconds own says are its (nil: all): the records a
// merge reads are shared out among goroutines by the seconds they add to.
type secondMerger struct {
	secs  map[int64]map[string]*mergedOp
	max   int64
	own   func(t int64) bool
	pool  *resultpack.Pool
	codec resultpack.Codec
	split resultpack.SplitWriter
	// totals, when not nil, sums the histograms of the seconds emitted,
	// by op (latency, TTFB, response): their stream's totals' (see
	// setWindowWith).
	totals map[string]*[3]*resultpack.Paged
}

func newSecondMerger(own func(int64) bool) *secondMerger {
	return &secondMerger{secs: map[int64]map[string]*mergedOp{}, max: -1, own: own}
}

func (m *secondMerger) owns(t int64) bool { return m.own == nil || m.own(t) }

func (m *secondMerger) op(t int64, name string) *mergedOp {
	ops := m.secs[t]
	if ops == nil {
		ops = map[string]*mergedOp{}
		m.secs[t] = ops
	}
	mo := ops[name]
	if mo == nil {
		mo = &mergedOp{OpSecond: result.OpSecond{Op: name}}
		for k := range mo.hist {
			mo.hist[k].UsePool(m.pool)
		}
		ops[name] = mo
	}
	m.max = max(m.max, t)
	return mo
}

// centerSecond is the merged second that holds most of part second t
// shifted by shift ticks.
func centerSecond(t, shift int64) int64 {
	const tps = result.TicksPerSecond
	return max((t*tps+shift+tps/2)/tps, 0)
}

// add puts second t of a part, shifted by shift ticks: its ticks go to the
// merged ticks they fall in; what has no ticks (errors, drops, histograms,
// a second away from a window edge) goes to the merged second that holds
// most of it. hists are o's histograms when it came packed (nil: o's
// strings). Only what lands in the merger's own seconds is added.
func (m *secondMerger) add(t int64, o *result.OpSecond, shift int64, hists *resultpack.Hists) error {
	return m.addAlso(t, o, shift, hists, nil)
}

// addAlso is add that also sums o's latencies into also (unless nil) when
// o's second is the merger's.
func (m *secondMerger) addAlso(t int64, o *result.OpSecond, shift int64, hists *resultpack.Hists, also *resultpack.Paged) error {
	if t > resultpack.MaxT || t < -resultpack.MaxT {
		return fmt.Errorf("second %d: out of range", t)
	}
	center := centerSecond(t, shift)
	owns := m.owns(center)
	var c *mergedOp
	if owns {
		c = m.op(center, o.Op)
	}
	okOps := o.Answered() // what the ticks hold
	if o.Ticks != nil {
		ok, bytes := m.addTicks(t, o, shift)
		if !owns {
			return nil
		}
		c.Ops += okOps - ok // ok ops the ticks did not hold (none, in a well-formed file)
		c.Bytes += o.Bytes - bytes
	} else if owns {
		c.Ops += okOps
		c.Bytes += o.Bytes
	} else {
		return nil
	}
	for class, n := range o.Errors {
		if c.Errors == nil {
			c.Errors = map[string]int64{}
		}
		c.Errors[class] += n
		if !result.AnsweredClass(class) { // answered ops are in okOps
			c.Ops += n
		}
	}
	c.Dropped += o.Dropped
	for k := range c.hist {
		h := &c.hist[k]
		var err error
		switch {
		case hists != nil && hists.B[k] != nil:
			if k == 0 {
				err = h.Add(hists.B[0], hists.Split, also)
			} else {
				err = h.Add(hists.B[k], hists.Split, nil)
			}
		case hists == nil:
			if enc := [3]string{o.Latency, o.TTFB, o.Response}[k]; enc != "" {
				err = h.AddText(enc, &m.codec)
			}
		}
		if err != nil {
			return err
		}
		c.has[k] = c.has[k] || !h.Empty()
	}
	return nil
}

// addTicks puts o's ticks (second t of a part, shifted by shift ticks)
// into the merged ticks they fall in that are the merger's, and returns
// the ok ops and bytes they hold.
func (m *secondMerger) addTicks(t int64, o *result.OpSecond, shift int64) (ok, bytes int64) {
	const tps = result.TicksPerSecond
	for k := range tps {
		var tk, tb int64
		if k < len(o.Ticks.OK) {
			tk = o.Ticks.OK[k]
		}
		if k < len(o.Ticks.Bytes) {
			tb = o.Ticks.Bytes[k]
		}
		if tk == 0 && tb == 0 {
			continue
		}
		ok, bytes = ok+tk, bytes+tb
		at := max(t*tps+int64(k)+shift, 0)
		if !m.owns(at / tps) {
			continue
		}
		dst := m.op(at/tps, o.Op)
		dst.hasTicks = true
		dst.ticks[at%tps].OK += tk
		dst.ticks[at%tps].Bytes += tb
		dst.Ops += tk
		dst.Bytes += tb
	}
	return ok, bytes
}

// emit appends the merged seconds from..to-1 to out, every one of them,
// and forgets them (their pages go back to the pool).
func (m *secondMerger) emit(from, to int64, out []result.Second, buf []byte) ([]result.Second, []byte, error) {
	for t := from; t < to; t++ {
		sec := result.Second{T: t}
		ops := m.secs[t]
		for _, name := range sortedOps(ops) {
			mo := ops[name]
			o := mo.OpSecond
			var tot *[3]*resultpack.Paged
			if m.totals != nil {
				if tot = m.totals[name]; tot == nil {
					tot = &[3]*resultpack.Paged{}
					m.totals[name] = tot
				}
			}
			for k, dst := range [3]*string{&o.Latency, &o.TTFB, &o.Response} {
				if !mo.has[k] {
					continue
				}
				var into *resultpack.Paged
				if tot != nil {
					if tot[k] == nil {
						tot[k] = &resultpack.Paged{}
					}
					into = tot[k]
				}
				var err error
				if *dst, buf, err = mo.hist[k].Pack(&m.split, buf, into); err != nil {
					return nil, nil, fmt.Errorf("second %d, op %s: %w", t, name, err)
				}
			}
			if mo.hasTicks {
				o.Ticks = mo.ticks.Export()
			}
			sec.Ops = append(sec.Ops, o)
		}
		delete(m.secs, t)
		out = append(out, sec)
	}
	return out, buf, nil
}

func sortedOps(ops map[string]*mergedOp) []string {
	names := make([]string, 0, len(ops))
	for n := range ops {
		names = append(names, n)
	}
	slices.SortFunc(names, result.CompareOps)
	return names
}
